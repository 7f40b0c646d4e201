package provider

// dbcloud_service: the model and its vocabulary, below the behaviour files (schema, plan, CRUD,
// update, flatten): the resource's model, the service's fields (serviceFields, mapped from a record by
// flattenService), the fork block, the addons and service types, the values the schema accepts, and
// the object types of the nested attributes.

import (
	"slices"
	"strings"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// serviceResourceModel is the resource's model: the service's fields as the API shows them
// (serviceFields, mapped from a record once by flattenService) and the arguments only the resource has.
type serviceResourceModel struct {
	serviceFields
	Password           types.String   `tfsdk:"password"`
	PasswordWO         types.String   `tfsdk:"password_wo"`
	PasswordWOVersion  types.Int64    `tfsdk:"password_wo_version"`
	Fork               types.Object   `tfsdk:"fork"`
	DeletionProtection types.Bool     `tfsdk:"deletion_protection"`
	AllowReplacement   types.Bool     `tfsdk:"allow_replacement"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
	InitialPassword    types.String   `tfsdk:"initial_password"`
}

type serviceForkModel struct {
	SourceServiceID types.String `tfsdk:"source_service_id"`
	Strategy        types.String `tfsdk:"strategy"`
	TargetTime      types.String `tfsdk:"target_time"`
}

// serviceFields is a service record flattened into Terraform values, mapped once by flattenService:
// the resource reads it (applyRecord), and it is the model of the dbcloud_service data source (with the
// read replica sets) and of each element of dbcloud_services. Missing fields are null; addons are
// derived from service_type. A field tagged `record:"kept"` is an argument that a record lacking it
// leaves as it was in the resource's state (applyRecord): the id and the arguments the API always has
// a value for, which a new in-place attribute usually is; vpc_id is not (a record without it says
// "not attached").
type serviceFields struct {
	ID                      types.String `tfsdk:"id" record:"kept"`
	ProjectID               types.String `tfsdk:"project_id"`
	Name                    types.String `tfsdk:"name" record:"kept"`
	Addons                  types.Set    `tfsdk:"addons"`
	RegionCode              types.String `tfsdk:"region_code" record:"kept"`
	ServiceType             types.String `tfsdk:"service_type"`
	Status                  types.String `tfsdk:"status"`
	Created                 types.String `tfsdk:"created"`
	Paused                  types.Bool   `tfsdk:"paused"`
	CPUMillis               types.Int64  `tfsdk:"cpu_millis" record:"kept"`
	MemoryGbs               types.Int64  `tfsdk:"memory_gbs" record:"kept"`
	VolumeType              types.String `tfsdk:"volume_type"`
	Environment             types.String `tfsdk:"environment" record:"kept"`
	HAReplicas              types.Int64  `tfsdk:"ha_replicas" record:"kept"`
	SyncReplicas            types.Int64  `tfsdk:"sync_replicas" record:"kept"`
	ConnectionPoolerEnabled types.Bool   `tfsdk:"connection_pooler_enabled"`
	Hostname                types.String `tfsdk:"hostname"`
	Port                    types.Int64  `tfsdk:"port"`
	PoolerHostname          types.String `tfsdk:"pooler_hostname"`
	PoolerPort              types.Int64  `tfsdk:"pooler_port"`
	ConnectionURI           types.String `tfsdk:"connection_uri"`
	PoolerConnectionURI     types.String `tfsdk:"pooler_connection_uri"`
	ReadOnlyConnectionURI   types.String `tfsdk:"read_only_connection_uri"`
	VpcID                   types.String `tfsdk:"vpc_id"`
	VpcHostname             types.String `tfsdk:"vpc_hostname"`
	VpcPort                 types.Int64  `tfsdk:"vpc_port"`
	ForkedFrom              types.Object `tfsdk:"forked_from"`
}

// Addons and the service types they produce.
const (
	addonTimeSeries = string(api.TimeSeries) // "time-series"
	addonAI         = string(api.Ai)         // "ai"

	serviceTypePostgres     = "POSTGRES"
	serviceTypeTimescaleDB  = "TIMESCALEDB"  // the live API's spelling
	serviceTypeTimeseriesDB = "TIMESERIESDB" // an older spelling of TIMESCALEDB, still accepted
	serviceTypeVector       = "VECTOR"
)

// serviceAddonValues are the values `addons` accepts.
var serviceAddonValues = []string{addonTimeSeries, addonAI}

// serviceEnvironments are the values `environment` accepts.
var serviceEnvironments = []string{string(api.DEV), string(api.PROD)}

// serviceForkStrategies are the values `fork.strategy` accepts.
var serviceForkStrategies = []string{string(api.LASTSNAPSHOT), string(api.NOW), string(api.PITR)}

var serviceForkedFromAttrTypes = map[string]attr.Type{
	"project_id": types.StringType,
	"service_id": types.StringType,
	"is_standby": types.BoolType,
}

var serviceForkAttrTypes = map[string]attr.Type{
	"source_service_id": types.StringType,
	"strategy":          types.StringType,
	"target_time":       types.StringType,
}

// addonsForServiceType derives the addons from a service type (after import, or for data sources):
// POSTGRES -> [], TIMESERIESDB/TIMESCALEDB -> [time-series], VECTOR -> [ai]; unknown types -> [].
// A service created with both addons reports TIMESERIESDB, so `ai` cannot be recovered from it.
func addonsForServiceType(serviceType string) []string {
	switch strings.ToUpper(strings.TrimSpace(serviceType)) {
	case serviceTypeTimeseriesDB, serviceTypeTimescaleDB:
		return []string{addonTimeSeries}
	case serviceTypeVector:
		return []string{addonAI}
	}
	return []string{}
}

// addonsMatchServiceType reports whether a service created with addons could report serviceType.
// Unknown service types match anything: the provider cannot tell. A service created with `ai` alone
// reports VECTOR on older servers and POSTGRES on newer ones (the live API deprecates VECTOR), so
// POSTGRES matches [] and [ai], as TIMESCALEDB matches [time-series] and both.
func addonsMatchServiceType(addons []string, serviceType string) bool {
	ts, ai := slices.Contains(addons, addonTimeSeries), slices.Contains(addons, addonAI)
	switch strings.ToUpper(strings.TrimSpace(serviceType)) {
	case serviceTypePostgres:
		return !ts
	case serviceTypeTimeseriesDB, serviceTypeTimescaleDB:
		return ts
	case serviceTypeVector:
		return ai && !ts
	}
	return true
}

// isPaused is the one rule of "the state says the service is paused", on the record's rule
// (api.ServiceStatus.Paused): its paused attribute (what the last apply did, or what the last read
// saw), or its status.
func (f serviceFields) isPaused() bool {
	return f.Paused.ValueBool() || api.ServiceStatus(f.Status.ValueString()).Paused()
}

// isStandbyRecord reports whether a Service record is a read replica set's standby.
func isStandbyRecord(svc *api.Service) bool {
	return svc != nil && svc.ForkedFrom != nil && svc.ForkedFrom.IsStandby != nil && *svc.ForkedFrom.IsStandby
}
