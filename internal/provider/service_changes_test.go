package provider

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// planServiceActions is pure: state + plan -> ordered API actions, tested without a server.
func TestPlanServiceActions(t *testing.T) {
	base := func() serviceResourceModel {
		return serviceResourceModel{
			serviceFields: serviceFields{
				Name:                    types.StringValue("svc"),
				CPUMillis:               types.Int64Value(1000),
				MemoryGbs:               types.Int64Value(4),
				HAReplicas:              types.Int64Value(0),
				SyncReplicas:            types.Int64Value(0),
				ConnectionPoolerEnabled: types.BoolValue(false),
				Environment:             types.StringValue("DEV"),
				VpcID:                   types.StringNull(),
			},
			Password:          types.StringNull(),
			PasswordWO:        types.StringNull(),
			PasswordWOVersion: types.Int64Null(),
		}
	}
	tests := []struct {
		name  string
		state func(*serviceResourceModel)
		plan  func(*serviceResourceModel)
		want  []string
	}{
		{name: "no change, no call", plan: func(*serviceResourceModel) {}},
		{name: "unknown values are not changes", plan: func(m *serviceResourceModel) {
			m.CPUMillis, m.HAReplicas, m.Environment = types.Int64Unknown(), types.Int64Unknown(), types.StringUnknown()
		}},
		{name: "attach to a VPC", plan: func(m *serviceResourceModel) { m.VpcID = types.StringValue("v1") },
			want: []string{"attach_vpc v1"}},
		{name: "detach from a VPC", state: func(m *serviceResourceModel) { m.VpcID = types.StringValue("v1") },
			plan: func(m *serviceResourceModel) { m.VpcID = types.StringNull() },
			want: []string{"detach_vpc v1"}},
		{name: "move to another VPC: detach before attach", state: func(m *serviceResourceModel) { m.VpcID = types.StringValue("v1") },
			plan: func(m *serviceResourceModel) { m.VpcID = types.StringValue("v2") },
			want: []string{"detach_vpc v1", "attach_vpc v2"}},
		{name: "resize when one size changes", plan: func(m *serviceResourceModel) { m.MemoryGbs = types.Int64Value(8) },
			want: []string{"resize 1000/8"}},
		{name: "HA: only the changed counts are sent", plan: func(m *serviceResourceModel) { m.SyncReplicas = types.Int64Value(1) },
			want: []string{"set_ha replicas=- sync=1"}},
		{name: "pooler on", plan: func(m *serviceResourceModel) { m.ConnectionPoolerEnabled = types.BoolValue(true) },
			want: []string{"set_pooler true"}},
		{name: "environment", plan: func(m *serviceResourceModel) { m.Environment = types.StringValue("PROD") },
			want: []string{"set_environment PROD"}},
		{name: "new password", plan: func(m *serviceResourceModel) { m.Password = types.StringValue("s3cret-pass") },
			want: []string{"set_password s3cret-pass"}},
		{name: "new password_wo_version sends password_wo", state: func(m *serviceResourceModel) { m.PasswordWOVersion = types.Int64Value(1) },
			plan: func(m *serviceResourceModel) {
				m.PasswordWOVersion, m.PasswordWO = types.Int64Value(2), types.StringValue("wo-pass-2")
			},
			want: []string{"set_password wo-pass-2"}},
		{name: "same password_wo_version sends nothing", state: func(m *serviceResourceModel) { m.PasswordWOVersion = types.Int64Value(1) },
			plan: func(m *serviceResourceModel) {
				m.PasswordWOVersion, m.PasswordWO = types.Int64Value(1), types.StringValue("wo-pass-1")
			}},
		{name: "rename in place", plan: func(m *serviceResourceModel) { m.Name = types.StringValue("new") },
			want: []string{"rename new"}},
		{name: "pause: stop", state: func(m *serviceResourceModel) { m.Paused = types.BoolValue(false) },
			plan: func(m *serviceResourceModel) { m.Paused = types.BoolValue(true) },
			want: []string{"stop"}},
		{name: "paused stays paused: nothing", state: func(m *serviceResourceModel) { m.Paused = types.BoolValue(true) },
			plan: func(*serviceResourceModel) {}},
		{name: "resume and resize: start first", state: func(m *serviceResourceModel) {
			m.Paused, m.Status = types.BoolValue(true), types.StringValue("PAUSED")
		},
			plan: func(m *serviceResourceModel) {
				m.Paused = types.BoolValue(false)
				m.CPUMillis, m.MemoryGbs = types.Int64Value(2000), types.Int64Value(8)
			},
			want: []string{"start", "resize 2000/8"}},
		{name: "rename and pause: stop last", state: func(m *serviceResourceModel) { m.Paused = types.BoolValue(false) },
			plan: func(m *serviceResourceModel) { m.Name, m.Paused = types.StringValue("new"), types.BoolValue(true) },
			want: []string{"rename new", "stop"}},
		{name: "everything at once, in order", state: func(m *serviceResourceModel) { m.VpcID = types.StringValue("v1") },
			plan: func(m *serviceResourceModel) {
				m.VpcID = types.StringValue("v2")
				m.CPUMillis, m.MemoryGbs = types.Int64Value(2000), types.Int64Value(8)
				m.HAReplicas = types.Int64Value(2)
				m.ConnectionPoolerEnabled = types.BoolValue(true)
				m.Environment = types.StringValue("PROD")
				m.Password = types.StringValue("s3cret-pass")
			},
			want: []string{
				"detach_vpc v1",
				"attach_vpc v2",
				"resize 2000/8",
				"set_ha replicas=2 sync=-",
				"set_pooler true",
				"set_environment PROD",
				"set_password s3cret-pass",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := base()
			if tt.state != nil {
				tt.state(&state)
			}
			plan := state
			tt.plan(&plan)
			var got []string // the printed plan, with the password shown: it is a test value
			for _, a := range planServiceActions(state, plan) {
				if a.Value == nil {
					got = append(got, a.Call)
				} else {
					got = append(got, fmt.Sprintf("%s %v", a.Call, a.Value))
				}
				if a.Call == "set_password" && strings.Contains(a.String(), fmt.Sprint(a.Value)) {
					t.Errorf("the printed plan shows the password: %s", a)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("planServiceActions:\n got  %+v\n want %+v", got, tt.want)
			}
		})
	}
}
