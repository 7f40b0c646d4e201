package provider

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// Helpers shared by the dbcloud_service resource and the dbcloud_service(s) data sources.

// Addons and the service types they produce.
const (
	addonTimeSeries = string(api.TimeSeries) // "time-series"
	addonAI         = string(api.Ai)         // "ai"

	serviceTypePostgres     = "POSTGRES"
	serviceTypeTimeseriesDB = "TIMESERIESDB"
	serviceTypeTimescaleDB  = "TIMESCALEDB" // the public docs' spelling of TIMESERIESDB
	serviceTypeVector       = "VECTOR"
)

// serviceAddonValues are the values `addons` accepts.
var serviceAddonValues = []string{addonTimeSeries, addonAI}

// serviceEnvironments are the values `environment` accepts.
var serviceEnvironments = []string{string(api.DEV), string(api.PROD)}

// serviceForkStrategies are the values `fork.strategy` accepts.
var serviceForkStrategies = []string{string(api.LASTSNAPSHOT), string(api.NOW), string(api.PITR)}

// serviceTypeResource is the resource type name used in analytics events.
const serviceTypeResource = "dbcloud_service"

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
// Unknown service types match anything: the provider cannot tell.
func addonsMatchServiceType(addons []string, serviceType string) bool {
	ts, ai := slices.Contains(addons, addonTimeSeries), slices.Contains(addons, addonAI)
	switch strings.ToUpper(strings.TrimSpace(serviceType)) {
	case serviceTypePostgres:
		return !ts && !ai
	case serviceTypeTimeseriesDB, serviceTypeTimescaleDB:
		return ts
	case serviceTypeVector:
		return ai && !ts
	}
	return true
}

// serviceStatus is the record's status, "" when missing.
func serviceStatus(svc *api.Service) string {
	if svc == nil || svc.Status == nil {
		return ""
	}
	return string(*svc.Status)
}

// serviceIsGone reports whether a record means the service no longer exists.
func serviceIsGone(svc *api.Service) bool {
	return serviceStatus(svc) == string(api.DELETED)
}

// formatAPITime renders an API time as RFC 3339 in UTC (fractional seconds only when present).
func formatAPITime(t *time.Time) types.String {
	if t == nil {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339Nano))
}

// Object types of the nested computed values.

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

var serviceReplicaSetAttrTypes = map[string]attr.Type{
	"id":              types.StringType,
	"name":            types.StringType,
	"status":          types.StringType,
	"nodes":           types.Int64Type,
	"cpu_millis":      types.Int64Type,
	"memory_gbs":      types.Int64Type,
	"environment":     types.StringType,
	"hostname":        types.StringType,
	"port":            types.Int64Type,
	"pooler_hostname": types.StringType,
	"pooler_port":     types.Int64Type,
}

// serviceFields is a service record flattened into Terraform values: the part shared by the resource
// and the data sources. Missing fields are null.
type serviceFields struct {
	ID, ProjectID, Name, RegionCode, ServiceType, Status, Created types.String
	Paused                                                        types.Bool
	CPUMillis, MemoryGbs                                          types.Int64
	VolumeType, Environment                                       types.String
	HAReplicas, SyncReplicas                                      types.Int64
	PoolerEnabled                                                 types.Bool
	Hostname                                                      types.String
	Port                                                          types.Int64
	PoolerHostname                                                types.String
	PoolerPort                                                    types.Int64
	VpcID, VpcHostname                                            types.String
	VpcPort                                                       types.Int64
	ForkedFrom                                                    types.Object
	InitialPassword                                               types.String
}

// flattenService maps every field of a service record.
func flattenService(svc *api.Service) serviceFields {
	f := serviceFields{
		ID:              stringValue(svc.ServiceID),
		ProjectID:       stringValue(svc.ProjectID),
		Name:            stringValue(svc.Name),
		RegionCode:      stringValue(svc.RegionCode),
		ServiceType:     stringValue(svc.ServiceType),
		Status:          types.StringNull(),
		Created:         formatAPITime(svc.Created),
		Paused:          types.BoolValue(deref(svc.Status) == api.PAUSED),
		CPUMillis:       types.Int64Null(),
		MemoryGbs:       types.Int64Null(),
		VolumeType:      types.StringNull(),
		Environment:     types.StringNull(),
		HAReplicas:      types.Int64Null(),
		SyncReplicas:    types.Int64Null(),
		PoolerEnabled:   types.BoolValue(false),
		Hostname:        types.StringNull(),
		Port:            types.Int64Null(),
		PoolerHostname:  types.StringNull(),
		PoolerPort:      types.Int64Null(),
		VpcID:           types.StringNull(),
		VpcHostname:     types.StringNull(),
		VpcPort:         types.Int64Null(),
		ForkedFrom:      types.ObjectNull(serviceForkedFromAttrTypes),
		InitialPassword: stringValue(svc.InitialPassword),
	}
	if svc.Status != nil {
		f.Status = types.StringValue(string(*svc.Status))
	}
	if svc.Resources != nil && len(*svc.Resources) > 0 && (*svc.Resources)[0].Spec != nil {
		spec := (*svc.Resources)[0].Spec
		f.CPUMillis = int64FromFloat(spec.CPUMillis)
		f.MemoryGbs = int64FromFloat(spec.MemoryGbs)
		f.VolumeType = stringValue(spec.VolumeType)
	}
	if svc.Metadata != nil {
		f.Environment = stringValue(svc.Metadata.Environment)
	}
	if svc.HaReplicas != nil {
		f.HAReplicas = int64Value(svc.HaReplicas.ReplicaCount)
		f.SyncReplicas = int64Value(svc.HaReplicas.SyncReplicaCount)
	}
	if svc.Endpoint != nil {
		f.Hostname = stringValue(svc.Endpoint.Host)
		f.Port = int64Value(svc.Endpoint.Port)
	}
	if svc.ConnectionPooler != nil && svc.ConnectionPooler.Endpoint != nil {
		f.PoolerEnabled = types.BoolValue(true)
		f.PoolerHostname = stringValue(svc.ConnectionPooler.Endpoint.Host)
		f.PoolerPort = int64Value(svc.ConnectionPooler.Endpoint.Port)
	}
	// vpcEndpoint may be null, {} or missing: all mean "not attached".
	if ve := api.VPCEndpointOf(svc); ve != nil {
		if ve.VpcID != nil && *ve.VpcID != "" {
			f.VpcID = types.StringValue(*ve.VpcID)
		}
		f.VpcHostname = stringValue(ve.Host)
		f.VpcPort = int64Value(ve.Port)
	}
	if ff := svc.ForkedFrom; ff != nil && (ff.ServiceID != nil || ff.ProjectID != nil || ff.IsStandby != nil) {
		f.ForkedFrom = types.ObjectValueMust(serviceForkedFromAttrTypes, map[string]attr.Value{
			"project_id": stringValue(ff.ProjectID),
			"service_id": stringValue(ff.ServiceID),
			"is_standby": boolValue(ff.IsStandby),
		})
	}
	return f
}

// serviceAddonsSet is a Terraform set of addon strings.
func serviceAddonsSet(addons []string) types.Set {
	vals := make([]attr.Value, 0, len(addons))
	for _, a := range addons {
		vals = append(vals, types.StringValue(a))
	}
	return types.SetValueMust(types.StringType, vals)
}

// setStrings returns the known string elements of a set.
func setStrings(ctx context.Context, s types.Set) ([]string, diag.Diagnostics) {
	var out []string
	if s.IsNull() || s.IsUnknown() {
		return out, nil
	}
	diags := s.ElementsAs(ctx, &out, false)
	sort.Strings(out)
	return out, diags
}

// replicaSetObjects maps a service's read replica sets to a list of objects.
func replicaSetObjects(sets *[]api.ReadReplicaSet) types.List {
	objType := types.ObjectType{AttrTypes: serviceReplicaSetAttrTypes}
	if sets == nil {
		return types.ListValueMust(objType, []attr.Value{})
	}
	vals := make([]attr.Value, 0, len(*sets))
	for _, rs := range *sets {
		status := types.StringNull()
		if rs.Status != nil {
			status = types.StringValue(string(*rs.Status))
		}
		env := types.StringNull()
		if rs.Metadata != nil {
			env = stringValue(rs.Metadata.Environment)
		}
		host, port := types.StringNull(), types.Int64Null()
		if rs.Endpoint != nil {
			host, port = stringValue(rs.Endpoint.Host), int64Value(rs.Endpoint.Port)
		}
		pHost, pPort := types.StringNull(), types.Int64Null()
		if rs.ConnectionPooler != nil && rs.ConnectionPooler.Endpoint != nil {
			pHost, pPort = stringValue(rs.ConnectionPooler.Endpoint.Host), int64Value(rs.ConnectionPooler.Endpoint.Port)
		}
		vals = append(vals, types.ObjectValueMust(serviceReplicaSetAttrTypes, map[string]attr.Value{
			"id":              stringValue(rs.ID),
			"name":            stringValue(rs.Name),
			"status":          status,
			"nodes":           int64Value(rs.Nodes),
			"cpu_millis":      int64FromFloat(rs.CPUMillis),
			"memory_gbs":      int64FromFloat(rs.MemoryGbs),
			"environment":     env,
			"hostname":        host,
			"port":            port,
			"pooler_hostname": pHost,
			"pooler_port":     pPort,
		}))
	}
	return types.ListValueMust(objType, vals)
}

// ---- waiting ----

// maxServiceNotFoundWhileCreating is how many 404s in a row a wait after create tolerates (the new
// service may not be visible to GET at once).
const maxServiceNotFoundWhileCreating = 3

// waitServiceReady polls until the service is READY and returns its record. creating tolerates a few
// 404s right after create; DELETING/DELETED always fail the wait, and so do PAUSING/PAUSED (this API
// version cannot resume a service). Every other status (QUEUED, CONFIGURING, UPGRADING, OPTIMIZING,
// RESUMING, UNSTABLE, which usually recovers, and any status this provider does not know) is waited out.
func waitServiceReady(ctx context.Context, pd *providerData, id string, creating bool) (*api.Service, error) {
	notFound := 0
	return waitFor(ctx, pd, fmt.Sprintf("service %s to become READY", id), func(ctx context.Context) (PollResult[*api.Service], error) {
		svc, err := pd.client.GetService(ctx, id)
		if err != nil {
			if creating && api.IsNotFound(err) && notFound < maxServiceNotFoundWhileCreating {
				notFound++
				return PollResult[*api.Service]{Status: "NOT_FOUND"}, nil
			}
			return PollResult[*api.Service]{}, err
		}
		notFound = 0
		st := serviceStatus(svc)
		switch st {
		case string(api.READY):
			return PollResult[*api.Service]{Value: svc, Status: st, Done: true}, nil
		case string(api.DELETED), string(api.DELETING):
			return PollResult[*api.Service]{}, fmt.Errorf("service %s is %s: it is being or was deleted outside Terraform", id, st)
		case string(api.PAUSED), string(api.PAUSING):
			// This API version has no resume call: waiting would only run out the timeout.
			return PollResult[*api.Service]{}, fmt.Errorf("service %s is %s, and the API has no call to resume it: "+
				"resume it outside Terraform (for example in the console), then apply again", id, st)
		}
		return PollResult[*api.Service]{Value: svc, Status: st}, nil
	})
}

// waitServiceGone polls until GET answers 404 or the status is DELETED.
func waitServiceGone(ctx context.Context, pd *providerData, id string) error {
	_, err := waitFor(ctx, pd, fmt.Sprintf("service %s to be deleted", id), func(ctx context.Context) (PollResult[struct{}], error) {
		svc, err := pd.client.GetService(ctx, id)
		if err != nil {
			if api.IsNotFound(err) {
				return PollResult[struct{}]{Status: "NOT_FOUND", Done: true}, nil
			}
			return PollResult[struct{}]{}, err
		}
		st := serviceStatus(svc)
		return PollResult[struct{}]{Status: st, Done: st == string(api.DELETED)}, nil
	})
	return err
}

// maxServiceConflictRetries bounds how often a state-changing call is tried again after a 409 or a
// lost answer.
const maxServiceConflictRetries = 4

// changeService makes one state-changing call: it waits for READY first, tries again after a 409 (a
// 409 provably did not apply) once the service is READY again, and when async waits for READY after.
// Every call here sets a target value (a size, a count, on/off, a VPC), so when its answer is lost
// (5xx, or no answer) the provider looks instead of failing: once the service is READY again,
// applied says whether the change took effect; if it did, that is success, if not the call is sent
// again. applied is nil for a change that cannot be observed (the password), which is re-sent:
// setting the same value twice is harmless.
func changeService(ctx context.Context, pd *providerData, id, what string, async bool, call func(context.Context) error, applied func(*api.Service) bool) error {
	lost := false
	for attempt := 0; ; attempt++ {
		svc, err := waitServiceReady(ctx, pd, id, false)
		if err != nil {
			return fmt.Errorf("before %s: %w", what, err)
		}
		if lost && applied != nil && applied(svc) {
			tflog.Info(ctx, "dbcloud: the answer to a change was lost, but the service shows it applied", map[string]any{"service_id": id, "what": what})
			break
		}
		err = call(ctx)
		if err == nil {
			break
		}
		lost = api.IsAmbiguous(err)
		if (!api.IsConflict(err) && !lost) || attempt >= maxServiceConflictRetries || ctx.Err() != nil {
			return err
		}
		tflog.Debug(ctx, "dbcloud: state-changing call answered 409 or lost; waiting for READY, then looking and trying again",
			map[string]any{"service_id": id, "what": what, "attempt": attempt + 1, "error": err.Error()})
	}
	if async {
		if _, err := waitServiceReady(ctx, pd, id, false); err != nil {
			return fmt.Errorf("after %s: %w", what, err)
		}
	}
	return nil
}

// Predicates for changeService: whether a service record shows a change applied.

func vpcAttached(vpcID string) func(*api.Service) bool {
	return func(s *api.Service) bool { return flattenService(s).VpcID.ValueString() == vpcID }
}

func vpcDetached(s *api.Service) bool { return flattenService(s).VpcID.IsNull() }

func resized(cpu, mem int) func(*api.Service) bool {
	return func(s *api.Service) bool {
		f := flattenService(s)
		return f.CPUMillis.ValueInt64() == int64(cpu) && f.MemoryGbs.ValueInt64() == int64(mem)
	}
}

func haApplied(in api.SetHAInput) func(*api.Service) bool {
	return func(s *api.Service) bool {
		f := flattenService(s)
		return (in.ReplicaCount == nil || f.HAReplicas.ValueInt64() == int64(*in.ReplicaCount)) &&
			(in.SyncReplicaCount == nil || f.SyncReplicas.ValueInt64() == int64(*in.SyncReplicaCount))
	}
}

func poolerIs(on bool) func(*api.Service) bool {
	return func(s *api.Service) bool { return flattenService(s).PoolerEnabled.ValueBool() == on }
}

func environmentIs(env api.Environment) func(*api.Service) bool {
	return func(s *api.Service) bool { return flattenService(s).Environment.ValueString() == string(env) }
}

// ---- ambiguous create ----

// ambiguousCreateLookFor is how long the provider keeps looking for a service whose create answer
// was lost (a variable for tests); ambiguousClockSkew widens the "created after the attempt started"
// window.
var ambiguousCreateLookFor = 10 * time.Second

const ambiguousClockSkew = time.Minute

// findCreatedService resolves an ambiguous create (5xx, or the connection broke after sending) by
// looking, never by sending the create again: it lists the project's services a few times for one
// named name created at or after started (minus clock skew). Exactly one: it is the one. None: nothing
// was created. Several: the provider cannot tell which is its own.
func findCreatedService(ctx context.Context, pd *providerData, name string, started time.Time, cause error) (*api.Service, error) {
	// The create's own context may be done (a timeout is one way to get here); look anyway, briefly.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ambiguousCreateLookFor+30*time.Second)
	defer cancel()
	since := started.Add(-ambiguousClockSkew)
	var lastErr error
	w := Waiter[*api.Service]{
		What:         fmt.Sprintf("a service named %q created since the lost answer", name),
		Timeout:      ambiguousCreateLookFor,
		Backoff:      pd.backoff,
		MaxTransient: math.MaxInt,
		Poll: func(ctx context.Context) (PollResult[*api.Service], error) {
			list, err := pd.client.ListServices(ctx)
			lastErr = err
			if err != nil {
				return PollResult[*api.Service]{}, err
			}
			var found []api.Service
			for _, s := range list {
				if deref(s.Name) != name || deref(s.ServiceID) == "" || serviceIsGone(&s) || serviceStatus(&s) == string(api.DELETING) {
					continue
				}
				if s.Created != nil && s.Created.Before(since) {
					continue
				}
				found = append(found, s)
			}
			switch len(found) {
			case 0:
				return PollResult[*api.Service]{Status: "not found yet"}, nil
			case 1:
				return PollResult[*api.Service]{Value: &found[0], Done: true}, nil
			}
			ids := make([]string, 0, len(found))
			for _, s := range found {
				ids = append(ids, deref(s.ServiceID))
			}
			return PollResult[*api.Service]{}, fmt.Errorf("%w\n\nThe answer was lost, and %d services named %q created since then exist (%s): the provider cannot tell which one "+
				"this apply created. Delete the extra ones or import the right one with `terraform import`, then apply again",
				cause, len(found), name, strings.Join(ids, ", "))
		},
	}
	svc, err := w.Wait(ctx)
	var timeout *WaitTimeoutError
	switch {
	case err == nil:
		return svc, nil
	case !errors.As(err, &timeout) && lastErr == nil:
		return nil, errors.Unwrap(err) // several candidates: the poll's own error
	case lastErr != nil:
		return nil, fmt.Errorf("%w\n\nThe answer was lost, and listing the services to find out whether %q was created failed too: %w. "+
			"Check the project's services: if the service exists, import it with `terraform import`; otherwise apply again", cause, name, lastErr)
	}
	return nil, fmt.Errorf("%w\n\nThe answer was lost, but no service named %q appeared, so nothing was created: apply again", cause, name)
}

// ---- validators ----

var _ validator.String = rfc3339StringValidator{}

// rfc3339StringValidator checks that a string is an RFC 3339 timestamp.
type rfc3339StringValidator struct{}

func (rfc3339StringValidator) Description(_ context.Context) string {
	return "value must be an RFC 3339 timestamp such as 2025-01-31T12:00:00Z"
}

func (v rfc3339StringValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (rfc3339StringValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid RFC 3339 timestamp",
			fmt.Sprintf("Attribute %s must be an RFC 3339 timestamp such as 2025-01-31T12:00:00Z, got %q: %v", req.Path, s, err))
	}
}
