package provider

// The dbcloud_service and dbcloud_services data sources: one service record model (serviceFields, see
// service_flatten.go) shared with the resource.

import (
	"context"
	"fmt"
	"reflect"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// NewServiceDataSource is the dbcloud_service data source.
func NewServiceDataSource() datasource.DataSource {
	return manageDataSource(&serviceDataSource{dataSourceBase{typeName: serviceTypeName}})
}

type serviceDataSource struct{ dataSourceBase }

// serviceDataSourceModel is a service with its read replica sets; serviceFields (service_flatten.go)
// holds the fields shared with the resource and the elements of dbcloud_services.
type serviceDataSourceModel struct {
	serviceFields
	ReadReplicaSets types.List `tfsdk:"read_replica_sets"`
}

// serviceComputedAttributes are the data source attributes describing one service (all computed).
func serviceComputedAttributes() map[string]schema.Attribute {
	str := func(desc string) schema.Attribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	i64 := func(desc string) schema.Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	return withResourceFields(map[string]schema.Attribute{
		"project_id":   str("Project the service lives in."),
		"name":         str("Service name."),
		"region_code":  str("Cloud region, e.g. `us-east-1`."),
		"service_type": str("Service type as the API reports it: `TIMESCALEDB` or `POSTGRES` (`VECTOR` on older servers), or any other string."),
		"addons": schema.SetAttribute{
			Computed: true, ElementType: types.StringType,
			MarkdownDescription: "Addons derived from `service_type`: `POSTGRES` -> `[]`, `TIMESCALEDB` (or the old `TIMESERIESDB`) -> " +
				"`[\"time-series\"]`, `VECTOR` -> `[\"ai\"]`, other types -> `[]`. A service created with both addons shows `[\"time-series\"]`.",
		},
		"status":                    str("Status, e.g. `READY`, `QUEUED`, `CONFIGURING`, `DELETING`."),
		"created":                   str("Creation time (RFC 3339, UTC)."),
		"paused":                    schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the service is paused: its status is `PAUSED`, or `PAUSING` (a stop is under way)."},
		"cpu_millis":                i64("CPU in thousandths of a core (`1000` = 1 vCPU)."),
		"memory_gbs":                i64("Memory in GB."),
		"volume_type":               str("Storage volume type, e.g. `gp3`."),
		"environment":               str("Environment tag: `DEV` or `PROD`."),
		"ha_replicas":               i64("Number of high-availability replicas."),
		"sync_replicas":             i64("How many of the HA replicas are synchronous."),
		"connection_pooler_enabled": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the connection pooler is on."},
		"hostname":                  str("Host name of the database endpoint."),
		"port":                      i64("Port of the database endpoint."),
		"pooler_hostname":           str("Host name of the connection pooler; null while it is off."),
		"pooler_port":               i64("Port of the connection pooler; null while it is off."),
		"connection_uri":            str("Connection string of the database endpoint, without a password: `postgresql://tsdbadmin@<hostname>:<port>/tsdb?sslmode=require`."),
		"pooler_connection_uri":     str("Connection string of the connection pooler, in the same form; null while it is off."),
		"read_only_connection_uri":  str(readOnlyConnectionURIDescription),
		"vpc_id":                    str("Id of the VPC the service is attached to; null when not attached."),
		"vpc_hostname":              str("Host name of the service inside its VPC; null when not attached."),
		"vpc_port":                  i64("Port of the service inside its VPC; null when not attached."),
		"forked_from": schema.SingleNestedAttribute{
			Computed:            true,
			MarkdownDescription: "Source of a forked service, or the primary of a read replica set's standby; null when the service is not a fork.",
			Attributes: map[string]schema.Attribute{
				"project_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Project of the source service."},
				"service_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the source service; for a standby (`is_standby = true`), the id of the read replica set's primary service."},
				"is_standby": schema.BoolAttribute{Computed: true, MarkdownDescription: "`true` when the record is the standby of a read replica set: the id read is a read replica set's, not a service's (see the `dbcloud_service` data source). `false` for a fork."},
			},
		},
	})
}

// withResourceFields adds to attrs every field of serviceFields (the data sources' model) that attrs
// does not describe, as a computed attribute with the resource's type and description: a new field of
// the service is an attribute of both data sources without an edit here (id is each one's own).
func withResourceFields(attrs map[string]schema.Attribute) map[string]schema.Attribute {
	var res resource.SchemaResponse
	(&serviceResource{}).Schema(context.Background(), resource.SchemaRequest{}, &res)
	fields := reflect.TypeFor[serviceFields]()
	for i := range fields.NumField() {
		name := fields.Field(i).Tag.Get("tfsdk")
		if _, ok := attrs[name]; ok || name == "id" {
			continue
		}
		attrs[name] = computedAttribute(name, res.Schema.Attributes[name])
	}
	return attrs
}

// computedAttribute is a resource attribute as a computed data source attribute.
func computedAttribute(name string, a rschema.Attribute) schema.Attribute {
	switch a := a.(type) {
	case rschema.StringAttribute:
		return schema.StringAttribute{Computed: true, MarkdownDescription: a.MarkdownDescription}
	case rschema.Int64Attribute:
		return schema.Int64Attribute{Computed: true, MarkdownDescription: a.MarkdownDescription}
	case rschema.BoolAttribute:
		return schema.BoolAttribute{Computed: true, MarkdownDescription: a.MarkdownDescription}
	case rschema.Float64Attribute:
		return schema.Float64Attribute{Computed: true, MarkdownDescription: a.MarkdownDescription}
	case rschema.SetAttribute:
		return schema.SetAttribute{Computed: true, ElementType: a.ElementType, MarkdownDescription: a.MarkdownDescription}
	case rschema.ListAttribute:
		return schema.ListAttribute{Computed: true, ElementType: a.ElementType, MarkdownDescription: a.MarkdownDescription}
	}
	panic(fmt.Sprintf("serviceFields has %q, which dbcloud_service's schema does not describe as a plain attribute (%T): describe it in serviceComputedAttributes", name, a))
}

func (d *serviceDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := serviceComputedAttributes()
	attrs["id"] = schema.StringAttribute{
		Required:            true,
		MarkdownDescription: "Id of the service to read, e.g. `rp1pz7uyae`. A read replica set's id is read too: the API answers it with a record of the set's standby (`forked_from.is_standby = true`).",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["read_replica_sets"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "The service's read replica sets.",
		NestedObject:        schema.NestedAttributeObject{Attributes: replicaSetItemAttributes()},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads one service of the provider's project by id, with its endpoints and read replica sets. " +
			"Secrets (passwords) are not available.\n\n" +
			"The API answers a **read replica set's id** on the service path too, with a record of the set's standby: " +
			"`forked_from.is_standby` is then `true`, `forked_from.service_id` is the primary service, and the name, size, " +
			"environment and endpoints are the replica set's (type and region are the primary's). Such an id is a replica set's, " +
			"not a service's: the `dbcloud_service` resource refuses it (manage it as a `dbcloud_read_replica_set`, import id " +
			"`<primary id>/<replica set id>`), and `dbcloud_services` never lists it.",
		Attributes: attrs,
	}
}

func (d *serviceDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg serviceDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := cfg.ID.ValueString()
	svc, err := d.pd.read().GetService(ctx, id)
	if err == nil && serviceIsGone(svc) {
		err = fmt.Errorf("service %s was deleted (status %s)", id, serviceStatus(svc))
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Service not found",
			fmt.Sprintf("%s. Check the id: services are listed by the dbcloud_services data source.", err))
		return
	}
	if api.IsNotFound(err) {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Service not found",
			fmt.Sprintf("Project %s has no service with id %q. Check the id: services are listed by the dbcloud_services data source.\n\n%s",
				d.pd.client.ProjectID(), id, err))
		return
	}
	if err != nil {
		d.pd.addError(ctx, &resp.Diagnostics, "Could not read service", err)
		return
	}
	out, diags := serviceDataSourceModelFrom(ctx, svc, d.pd.client.ProjectID())
	resp.Diagnostics.Append(diags...)
	out.ID = cfg.ID
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}

// serviceDataSourceModelFrom maps a record to the data source model.
func serviceDataSourceModelFrom(ctx context.Context, svc *api.Service, projectID string) (serviceDataSourceModel, diag.Diagnostics) {
	f := flattenService(svc)
	if f.ProjectID.IsNull() {
		f.ProjectID = types.StringValue(projectID)
	}
	sets, diags := replicaSetObjects(ctx, svc.ReadReplicaSets)
	return serviceDataSourceModel{serviceFields: f, ReadReplicaSets: sets}, diags
}

// NewServicesDataSource is the dbcloud_services data source.
func NewServicesDataSource() datasource.DataSource {
	return manageDataSource(&servicesDataSource{dataSourceBase{typeName: servicesTypeName}})
}

type servicesDataSource struct{ dataSourceBase }

// servicesDataSourceModel: the filters are the list resource's (service_list.go), and filter alike.
type servicesDataSourceModel struct {
	serviceListModel
	IDs      types.List `tfsdk:"ids"`
	Services types.List `tfsdk:"services"`
}

// servicesNestedObject is the schema of one element of `services`.
func servicesNestedObject() schema.NestedAttributeObject {
	attrs := serviceComputedAttributes()
	attrs["id"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Service id."}
	return schema.NestedAttributeObject{Attributes: attrs}
}

func (d *servicesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the services of the provider's project, oldest first, optionally filtered. " +
			"Filters match exactly (case-sensitive); unset filters match everything. Deleted services are left out.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only services with exactly this name.",
			},
			"service_type": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only services of exactly this type as the API spells it, e.g. `TIMESCALEDB` or `POSTGRES`.",
			},
			"status": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only services with exactly this status, e.g. `READY`.",
			},
			"ids": schema.ListAttribute{
				Computed:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Ids of the matching services, in the order of `services`.",
			},
			"services": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The matching services (see the `dbcloud_service` data source for the fields; replica sets are not included, and neither is any record of a read replica set's standby, `forked_from.is_standby = true`).",
				NestedObject:        servicesNestedObject(),
			},
		},
	}
}

func (d *servicesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg servicesDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	list, err := d.pd.read().ListServices(ctx)
	if err != nil {
		d.pd.addError(ctx, &resp.Diagnostics, "Could not list services", err)
		return
	}
	match := func(filter types.String, v *string) bool {
		return filter.IsNull() || (v != nil && *v == filter.ValueString())
	}
	ids := []string{}
	services := []serviceFields{}
	for i := range list {
		s := &list[i]
		if serviceIsGone(s) || isStandbyRecord(s) || !match(cfg.Name, s.Name) || !match(cfg.ServiceType, s.ServiceType) {
			continue
		}
		status := serviceStatus(s)
		if !cfg.Status.IsNull() && status != cfg.Status.ValueString() {
			continue
		}
		m, diags := serviceDataSourceModelFrom(ctx, s, d.pd.client.ProjectID())
		resp.Diagnostics.Append(diags...)
		ids = append(ids, m.ID.ValueString())
		services = append(services, m.serviceFields)
	}
	out := cfg
	idList, diags := types.ListValueFrom(ctx, types.StringType, ids)
	resp.Diagnostics.Append(diags...)
	serviceList, diags := types.ListValueFrom(ctx, servicesNestedObject().Type(), services)
	resp.Diagnostics.Append(diags...)
	out.IDs, out.Services = idList, serviceList
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
