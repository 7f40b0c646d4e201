package provider

// A service record mapped once (flattenService) for the resource, the dbcloud_service data source
// and the dbcloud_services list data source.

import (
	"reflect"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// flattenService maps every field of a service record.
func flattenService(svc *api.Service) serviceFields {
	f := serviceFields{
		ID:                      types.StringPointerValue(svc.ServiceID),
		ProjectID:               types.StringPointerValue(svc.ProjectID),
		Name:                    types.StringPointerValue(svc.Name),
		RegionCode:              types.StringPointerValue(svc.RegionCode),
		ServiceType:             types.StringPointerValue(svc.ServiceType),
		Status:                  types.StringNull(),
		Created:                 formatAPITime(svc.Created),
		Paused:                  types.BoolValue(svc.Paused()),
		CPUMillis:               types.Int64Null(),
		MemoryGbs:               types.Int64Null(),
		VolumeType:              types.StringNull(),
		Environment:             types.StringNull(),
		HAReplicas:              types.Int64Null(),
		SyncReplicas:            types.Int64Null(),
		ConnectionPoolerEnabled: types.BoolValue(false),
		Hostname:                types.StringNull(),
		Port:                    types.Int64Null(),
		PoolerHostname:          types.StringNull(),
		PoolerPort:              types.Int64Null(),
		VpcID:                   types.StringNull(),
		VpcHostname:             types.StringNull(),
		VpcPort:                 types.Int64Null(),
		ForkedFrom:              types.ObjectNull(serviceForkedFromAttrTypes),
	}
	if svc.Status != nil {
		f.Status = types.StringValue(string(*svc.Status))
	}
	f.Addons = serviceAddonsSet(addonsForServiceType(f.ServiceType.ValueString()))
	if svc.Resources != nil && len(*svc.Resources) > 0 && (*svc.Resources)[0].Spec != nil {
		spec := (*svc.Resources)[0].Spec
		f.CPUMillis = int64Value(spec.CPUMillis)
		f.MemoryGbs = int64Value(spec.MemoryGbs)
		f.VolumeType = types.StringPointerValue(spec.VolumeType)
	}
	if svc.Metadata != nil {
		f.Environment = types.StringPointerValue(svc.Metadata.Environment)
	}
	if svc.HaReplicas != nil {
		f.HAReplicas = int64Value(svc.HaReplicas.ReplicaCount)
		f.SyncReplicas = int64Value(svc.HaReplicas.SyncReplicaCount)
	}
	if svc.Endpoint != nil {
		f.Hostname = types.StringPointerValue(svc.Endpoint.Host)
		f.Port = int64Value(svc.Endpoint.Port)
	}
	if ep := api.PoolerEndpoint(svc.ConnectionPooler); ep != nil { // the one rule of "pooler enabled"
		f.ConnectionPoolerEnabled = types.BoolValue(true)
		f.PoolerHostname = types.StringPointerValue(ep.Host)
		f.PoolerPort = int64Value(ep.Port)
	}
	// vpcEndpoint may be null, {} or missing: all mean "not attached".
	if ve := api.VPCEndpointOf(svc); ve != nil {
		if ve.VpcID != nil && *ve.VpcID != "" {
			f.VpcID = types.StringValue(*ve.VpcID)
		}
		f.VpcHostname = types.StringPointerValue(ve.Host)
		f.VpcPort = int64Value(ve.Port)
	}
	if ff := svc.ForkedFrom; ff != nil && (ff.ServiceID != nil || ff.ProjectID != nil || ff.IsStandby != nil) {
		f.ForkedFrom = types.ObjectValueMust(serviceForkedFromAttrTypes, map[string]attr.Value{
			"project_id": types.StringPointerValue(ff.ProjectID),
			"service_id": types.StringPointerValue(ff.ServiceID),
			"is_standby": types.BoolPointerValue(ff.IsStandby),
		})
	}
	f.ConnectionURI = connectionURI(f.Hostname, f.Port)
	f.PoolerConnectionURI = connectionURI(f.PoolerHostname, f.PoolerPort)
	f.ReadOnlyConnectionURI = readOnlyConnectionURI(f.ConnectionURI)
	return f
}

// applyRecord writes a service record into the model. Inputs the record lacks keep their value;
// computed values the record lacks become null. addons, password*, fork, deletion_protection and
// timeouts are never taken from the API; initial_password only when the record carries it.
func (m *serviceResourceModel) applyRecord(svc *api.Service, projectID string) {
	prev := m.serviceFields
	m.serviceFields = flattenService(svc)
	m.Addons = prev.Addons
	if m.ProjectID.IsNull() {
		m.ProjectID = types.StringValue(projectID)
	}
	keepInputs(&m.serviceFields, prev)
	if svc.InitialPassword != nil {
		m.InitialPassword = types.StringPointerValue(svc.InitialPassword)
	}
}

// keepInputs puts back into f the fields tagged `record:"kept"` (serviceFields) that the record left null.
func keepInputs(f *serviceFields, prev serviceFields) {
	dst, src := reflect.ValueOf(f).Elem(), reflect.ValueOf(prev)
	for _, field := range modelFields(dst.Type()) {
		if !field.kept {
			continue
		}
		if v, ok := dst.FieldByIndex(field.index).Interface().(attr.Value); ok && v.IsNull() {
			dst.FieldByIndex(field.index).Set(src.FieldByIndex(field.index))
		}
	}
}

// forState makes the model storable: no unknown values, and no write-only password.
func (m *serviceResourceModel) forState() {
	nullUnknowns(m)
	m.PasswordWO = types.StringNull()
}

// formatAPITime renders an API time as RFC 3339 in UTC (fractional seconds only when present).
func formatAPITime(t *time.Time) types.String {
	if t == nil {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339Nano))
}

// Object types of the nested computed values.

// serviceAddonsSet is a Terraform set of addon strings.
func serviceAddonsSet(addons []string) types.Set {
	vals := make([]attr.Value, 0, len(addons))
	for _, a := range addons {
		vals = append(vals, types.StringValue(a))
	}
	return types.SetValueMust(types.StringType, vals)
}

// replicaSetObjects, the read replica sets of a service: read_replica_set_model.go.
