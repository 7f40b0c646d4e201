package provider

// dbcloud_service from the official provider's timescale_service (move_state.go): a `moved` block.

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ResourceWithMoveState = (*serviceResource)(nil)

// MoveState takes a timescale_service (schema version 0, the only one it has had).
func (r *serviceResource) MoveState(context.Context) []resource.StateMover {
	return timescaleMove{target: serviceTypeName, source: "timescale_service", versions: []int64{0}, move: moveTimescaleService}.stateMovers()
}

// serviceWithoutCounterpart are the timescale_service attributes the REST API has no counterpart of,
// with what becomes of each.
var serviceWithoutCounterpart = [][2]string{
	{"data_tiering_enabled", "data tiering stays as it is"},
	{"metric_exporter_id", "the metric exporter stays attached"},
	{"log_exporter_id", "the log exporter stays attached"},
	{"storage_gb", "deprecated and ignored by timescale/timescale already"},
}

// moveTimescaleService maps a timescale_service state. Every argument with a counterpart is carried
// over; the admin password is kept as initial_password (the password the configuration did not set),
// or dropped for a password_wo user (no password in state, password_wo_version kept); computed values
// are left to the refresh that follows, which derives addons from the service type as after an import.
func moveTimescaleService(ctx context.Context, src *timescaleState, resp *resource.MoveStateResponse) {
	id := src.str("id")
	src.warnOn = "service " + id.ValueString()
	if replica := src.str("read_replica_source"); src.isSet("read_replica_source") {
		resp.Diagnostics.AddError("A read replica does not move to dbcloud_service", fmt.Sprintf(
			"timescale_service %s is a read replica of service %s (read_replica_source). A dbcloud_service is a primary "+
				"service; read replicas are read replica sets, another object (dbcloud_read_replica_set), so this one cannot "+
				"be moved. Nothing was moved. Remove this moved block and its dbcloud_service; stop managing the replica with "+
				"the timescale provider without destroying it (removed { from = ...  lifecycle { destroy = false } }); then "+
				"import its read replica set (import { to = dbcloud_read_replica_set.NAME  id = \"%s/<replica_set_id>\" }, the "+
				"ids in the read_replica_sets of data.dbcloud_service) or create a new dbcloud_read_replica_set for service %s.",
			id.ValueString(), replica.ValueString(), replica.ValueString(), replica.ValueString()))
		return
	}
	if !known(id) || id.ValueString() == "" {
		resp.Diagnostics.AddError("No id in the timescale_service state", "The timescale_service state has no id, so there is no service to move. Nothing was moved.")
		return
	}
	m := serviceResourceModel{
		serviceFields: serviceFields{
			ID:                      id,
			Name:                    src.str("name"),
			Addons:                  types.SetNull(types.StringType),
			RegionCode:              src.str("region_code"),
			Paused:                  src.bool("paused"),
			CPUMillis:               src.int64("milli_cpu"),
			MemoryGbs:               src.int64("memory_gb"),
			Environment:             src.str("environment_tag"),
			ConnectionPoolerEnabled: src.bool("connection_pooler_enabled"),
			VpcID:                   src.decimal("vpc_id"),
			ForkedFrom:              types.ObjectNull(serviceForkedFromAttrTypes),
		},
		PasswordWOVersion:  src.int64("password_wo_version"),
		Fork:               types.ObjectNull(serviceForkAttrTypes),
		DeletionProtection: types.BoolValue(false),
		Timeouts:           movedTimeouts(ctx, resp.TargetState, src.nestedStr("timeouts", "create")),
		InitialPassword:    types.StringNull(),
	}
	m.HAReplicas, m.SyncReplicas = movedHA(src)
	if m.PasswordWOVersion.IsNull() && src.isSet("password") {
		m.InitialPassword = src.str("password")
	}
	src.noCounterpart(serviceWithoutCounterpart)
	if len(src.errs) > 0 {
		return
	}
	resp.Diagnostics.Append(resp.TargetState.Set(ctx, &m)...)
	// No identity: the service's identity names its project, which a timescale_service state does not
	// hold and the provider (not configured for a move) cannot know. An identity with a null project_id
	// would be refused by the refresh that follows ("Unexpected Identity Change"); a null one is set by
	// that refresh, as after an import.
}

// movedHA is ha_replicas and sync_replicas from a timescale_service: its own, or for a state written
// before they existed (before timescale/timescale 2.5.0), the deprecated enable_ha_replica (true: one
// asynchronous replica, false: none).
func movedHA(src *timescaleState) (types.Int64, types.Int64) {
	ha, sync := src.int64("ha_replicas"), src.int64("sync_replicas")
	if !ha.IsNull() {
		return ha, sync
	}
	enabled := src.bool("enable_ha_replica")
	if enabled.IsNull() {
		return ha, sync
	}
	if enabled.ValueBool() {
		ha = types.Int64Value(1)
	} else {
		ha = types.Int64Value(0)
	}
	if sync.IsNull() {
		sync = types.Int64Value(0)
	}
	return ha, sync
}
