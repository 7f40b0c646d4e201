package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// One read replica set as the data sources show it: an item of dbcloud_read_replica_sets, an item of
// dbcloud_service's read_replica_sets, and the dbcloud_read_replica_set data source all have these
// fields, under these names, mapped by replicaSetData.

// replicaSetDataModel is one replica set in a data source.
type replicaSetDataModel struct {
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
}

// replicaSetItemAttrTypes are the attribute types of replicaSetDataModel.
var replicaSetItemAttrTypes = map[string]attr.Type{
	"id":                        types.StringType,
	"name":                      types.StringType,
	"status":                    types.StringType,
	"nodes":                     types.Int64Type,
	"cpu_millis":                types.Int64Type,
	"memory_gbs":                types.Int64Type,
	"environment":               types.StringType,
	"connection_pooler_enabled": types.BoolType,
	"hostname":                  types.StringType,
	"port":                      types.Int64Type,
	"pooler_hostname":           types.StringType,
	"pooler_port":               types.Int64Type,
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
	}
}

// replicaSetData converts an API record, with nulls for what it leaves out.
func replicaSetData(rs *api.ReadReplicaSet) replicaSetDataModel {
	m := readReplicaSetModel{
		Name: types.StringNull(), Nodes: types.Int64Null(), CPUMillis: types.Int64Null(), MemoryGbs: types.Int64Null(),
		Environment: types.StringNull(), Status: types.StringNull(),
	}
	m.applyRecord(rs)
	return replicaSetDataModel{
		ID:                      types.StringPointerValue(rs.ID),
		Name:                    m.Name,
		Status:                  m.Status,
		Nodes:                   m.Nodes,
		CPUMillis:               m.CPUMillis,
		MemoryGbs:               m.MemoryGbs,
		Environment:             m.Environment,
		ConnectionPoolerEnabled: m.ConnectionPoolerEnabled,
		Hostname:                m.Hostname,
		Port:                    m.Port,
		PoolerHostname:          m.PoolerHostname,
		PoolerPort:              m.PoolerPort,
	}
}

// replicaSetObjects maps a list of replica sets (a service's, or a list call's) to a list value of
// replicaSetItemAttrTypes objects; nil is an empty list.
func replicaSetObjects(sets *[]api.ReadReplicaSet) types.List {
	objType := types.ObjectType{AttrTypes: replicaSetItemAttrTypes}
	vals := make([]attr.Value, 0, len(deref(sets)))
	for _, rs := range deref(sets) {
		m := replicaSetData(&rs)
		vals = append(vals, types.ObjectValueMust(replicaSetItemAttrTypes, map[string]attr.Value{
			"id":                        m.ID,
			"name":                      m.Name,
			"status":                    m.Status,
			"nodes":                     m.Nodes,
			"cpu_millis":                m.CPUMillis,
			"memory_gbs":                m.MemoryGbs,
			"environment":               m.Environment,
			"connection_pooler_enabled": m.ConnectionPoolerEnabled,
			"hostname":                  m.Hostname,
			"port":                      m.Port,
			"pooler_hostname":           m.PoolerHostname,
			"pooler_port":               m.PoolerPort,
		}))
	}
	return types.ListValueMust(objType, vals)
}
