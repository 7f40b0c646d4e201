package provider

// Temporary stubs, replaced by the replica set, VPC and peering resources and data sources.

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

func NewReadReplicaSetResource() resource.Resource        { return nil }
func NewVPCResource() resource.Resource                   { return nil }
func NewVPCPeeringResource() resource.Resource            { return nil }
func NewReadReplicaSetsDataSource() datasource.DataSource { return nil }
func NewVPCDataSource() datasource.DataSource             { return nil }
func NewVPCsDataSource() datasource.DataSource            { return nil }
func NewVPCPeeringDataSource() datasource.DataSource      { return nil }
func NewVPCPeeringsDataSource() datasource.DataSource     { return nil }
