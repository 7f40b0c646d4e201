package provider

// Temporary stubs, replaced by service_resource.go and the service data sources.

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

func NewServiceResource() resource.Resource        { return nil }
func NewServiceDataSource() datasource.DataSource  { return nil }
func NewServicesDataSource() datasource.DataSource { return nil }
