package provider

// The dbcloud_read_replica_set model, below its behaviour files: the set's fields (replicaSetFields,
// shared by the resource, the data sources and the list resource, mapped from a record by applyRecord),
// their object type, and the resource's model (readReplicaSetModel).

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// One read replica set as the API shows it: replicaSetFields is the model of the dbcloud_read_replica_set
// data source, of each item of dbcloud_read_replica_sets and of dbcloud_service's read_replica_sets,
// and it is embedded in the resource's model, so that its field list is written once here (the
// object type comes from the schema attributes, the list value from the structs).

// replicaSetFields is one replica set; applyRecord maps a record into it.
type replicaSetFields struct {
	ID                      types.String `tfsdk:"id"`
	Name                    types.String `tfsdk:"name"`
	Status                  types.String `tfsdk:"status"`
	Nodes                   types.Int64  `tfsdk:"nodes"`
	CPUMillis               types.Int64  `tfsdk:"cpu_millis"`
	MemoryGbs               types.Int64  `tfsdk:"memory_gbs"`
	Environment             types.String `tfsdk:"environment"`
	ConnectionPoolerEnabled types.Bool   `tfsdk:"connection_pooler_enabled"`
	Hostname                types.String `tfsdk:"hostname"`
	Port                    types.Int64  `tfsdk:"port"`
	PoolerHostname          types.String `tfsdk:"pooler_hostname"`
	PoolerPort              types.Int64  `tfsdk:"pooler_port"`
	ConnectionURI           types.String `tfsdk:"connection_uri"`
}

// replicaSetItemAttributes are the computed schema attributes of one replica set in a data source.
func replicaSetItemAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":                        schema.StringAttribute{Computed: true, MarkdownDescription: "Replica set id."},
		"name":                      schema.StringAttribute{Computed: true, MarkdownDescription: "Replica set name."},
		"status":                    schema.StringAttribute{Computed: true, MarkdownDescription: "Status: `creating`, `active`, `resizing`, `deleting` or `error` (other values are passed through)."},
		"nodes":                     schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of replica nodes."},
		"cpu_millis":                schema.Int64Attribute{Computed: true, MarkdownDescription: "CPU of each node in milli-cores (`1000` = 1 vCPU)."},
		"memory_gbs":                schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory of each node in GB."},
		"environment":               schema.StringAttribute{Computed: true, MarkdownDescription: "Environment tag, `DEV` or `PROD`."},
		"connection_pooler_enabled": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the set has its own connection pooler."},
		"hostname":                  schema.StringAttribute{Computed: true, MarkdownDescription: "Host name of the read-only endpoint."},
		"port":                      schema.Int64Attribute{Computed: true, MarkdownDescription: "TCP port of the read-only endpoint."},
		"pooler_hostname":           schema.StringAttribute{Computed: true, MarkdownDescription: "Host name of the connection pooler; null while it is disabled."},
		"pooler_port":               schema.Int64Attribute{Computed: true, MarkdownDescription: "TCP port of the connection pooler; null while it is disabled."},
		"connection_uri":            schema.StringAttribute{Computed: true, MarkdownDescription: "Connection string of the replica set's endpoint, with the primary's role and no password: `postgresql://tsdbadmin@<hostname>:<port>/tsdb?sslmode=require`. Read-only by nature (a hot standby): writes fail with SQLSTATE 25006."},
	}
}

// replicaSetItemType is the object type of one replica set in a data source, from its attributes.
var replicaSetItemType = func() types.ObjectType {
	attrTypes := map[string]attr.Type{}
	for name, a := range replicaSetItemAttributes() {
		attrTypes[name] = a.GetType()
	}
	return types.ObjectType{AttrTypes: attrTypes}
}()

// replicaSetData converts an API record, with nulls for what it leaves out.
func replicaSetData(rs *api.ReadReplicaSet) replicaSetFields {
	var m replicaSetFields
	m.applyRecord(rs)
	m.ID = types.StringPointerValue(rs.ID)
	nullUnknowns(&m)
	return m
}

// replicaSetObjects maps a list of replica sets (a service's, or a list call's) to a list value of
// replicaSetItemType objects; nil is an empty list.
func replicaSetObjects(ctx context.Context, sets *[]api.ReadReplicaSet) (types.List, diag.Diagnostics) {
	items := make([]replicaSetFields, 0, len(deref(sets)))
	for _, rs := range deref(sets) {
		items = append(items, replicaSetData(&rs))
	}
	return types.ListValueFrom(ctx, replicaSetItemType, items)
}

// readReplicaSetModel is the resource's model: the set's fields (replicaSetFields, mapped from a
// record by applyRecord) and the arguments only the resource has.
type readReplicaSetModel struct {
	replicaSetFields
	ServiceID types.String   `tfsdk:"service_id"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

// applyRecord copies what the API reports into the model. Fields the record leaves out keep their value.
func (m *replicaSetFields) applyRecord(rs *api.ReadReplicaSet) {
	if rs == nil {
		return
	}
	if rs.Name != nil {
		m.Name = types.StringValue(*rs.Name)
	}
	if rs.Nodes != nil {
		m.Nodes = int64Value(rs.Nodes)
	}
	if rs.CPUMillis != nil {
		m.CPUMillis = int64Value(rs.CPUMillis)
	}
	if rs.MemoryGbs != nil {
		m.MemoryGbs = int64Value(rs.MemoryGbs)
	}
	if env := replicaSetEnvironment(rs); env != "" {
		m.Environment = types.StringValue(env)
	}
	if rs.Status != nil {
		m.Status = types.StringValue(string(*rs.Status))
	}
	if ep := rs.Endpoint; ep != nil && deref(ep.Host) != "" {
		m.Hostname = types.StringPointerValue(ep.Host)
		m.Port = int64Value(ep.Port)
	} else {
		m.Hostname, m.Port = types.StringNull(), types.Int64Null()
	}
	m.ConnectionURI = connectionURI(m.Hostname, m.Port)
	m.ConnectionPoolerEnabled = types.BoolValue(rs.PoolerEnabled())
	if ep := api.PoolerEndpoint(rs.ConnectionPooler); ep != nil {
		m.PoolerHostname = types.StringPointerValue(ep.Host)
		m.PoolerPort = int64Value(ep.Port)
	} else {
		m.PoolerHostname, m.PoolerPort = types.StringNull(), types.Int64Null()
	}
}

func replicaSetEnvironment(rs *api.ReadReplicaSet) string {
	if rs == nil || rs.Metadata == nil {
		return ""
	}
	return deref(rs.Metadata.Environment)
}
