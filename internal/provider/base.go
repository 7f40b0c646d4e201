package provider

// The one place for what every resource, data source, list resource, action and ephemeral resource
// needs around its own logic: the type name, the provider data (Configure), the "provider not
// configured" guard, the classification of an action's failure (actionFailed), and, for resources, identity
// kept in sync with state after Create, Read and Update, the planned values kept after Create and
// Update (planned.go), import by identity, and the analytics event
// of each create, update and delete that succeeded. Each resource
// implements its CRUD and embeds resourceBase; its constructor wraps it with manageResource, and
// the wrapper does the rest, so no resource calls these by hand.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// Type names of the resources (and of their list resources, their singular data sources, analytics
// events and messages), and of the data sources that list them.
const (
	serviceTypeName    = "dbcloud_service"
	replicaSetTypeName = "dbcloud_read_replica_set"
	vpcTypeName        = "dbcloud_vpc"
	peeringTypeName    = "dbcloud_vpc_peering"

	servicesTypeName    = serviceTypeName + "s"
	replicaSetsTypeName = replicaSetTypeName + "s"
	vpcsTypeName        = vpcTypeName + "s"
	peeringsTypeName    = peeringTypeName + "s"
	projectsTypeName    = "dbcloud_projects"
	serviceLogsTypeName = serviceTypeName + "_logs"
)

// resourceBase is embedded by every resource (and list resource): its full type name, and the
// provider data, nil until the provider is configured.
type resourceBase struct {
	pd       *providerData
	typeName string
}

func (b *resourceBase) base() *resourceBase { return b }

// Metadata and Configure serve the list resources (under manageList, which sets the data itself).
func (b *resourceBase) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = b.typeName
}

func (b *resourceBase) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// resourceImpl is what a resource implements under the wrapper.
type resourceImpl interface {
	resource.ResourceWithImportState
	resource.ResourceWithIdentity
	base() *resourceBase
}

// resourceOf is a resource with its model M and its API record T: what a resource implements under
// the wrapper, with its one lookup of a lost create (lostCreateFinder, placeholder.go).
type resourceOf[M, T any] interface {
	resourceImpl
	lostCreateFinder[M, T]
}

// manageResource wraps a resource with the cross-cutting concerns (see the top of this file).
func manageResource[M, T any](impl resourceOf[M, T]) resource.Resource {
	return &managedResource{impl: impl, findPlaceholder: placeholderLookup(impl)}
}

type managedResource struct {
	impl            resourceImpl
	findPlaceholder func(ctx context.Context, state tfsdk.State, lc lostCreate) (string, error)
}

var (
	_ resource.ResourceWithConfigure      = (*managedResource)(nil)
	_ resource.ResourceWithImportState    = (*managedResource)(nil)
	_ resource.ResourceWithIdentity       = (*managedResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*managedResource)(nil)
	_ resource.ResourceWithValidateConfig = (*managedResource)(nil)
	_ resource.ResourceWithMoveState      = (*managedResource)(nil)
)

func (m *managedResource) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	m.impl.Metadata(ctx, req, resp)
}

func (m *managedResource) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	m.impl.Schema(ctx, req, resp)
}

func (m *managedResource) IdentitySchema(ctx context.Context, req resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	m.impl.IdentitySchema(ctx, req, resp)
}

func (m *managedResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	m.impl.base().pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (m *managedResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if notConfigured(m.impl.base().pd, &resp.Diagnostics) {
		return
	}
	defer m.impl.base().pd.outageWarnings(&resp.Diagnostics)
	m.impl.base().pd.walk.apply()
	m.impl.Create(ctx, req, resp)
	interruptedLogins(ctx, &resp.Diagnostics)
	keepPlannedState(ctx, req.Plan, &resp.State, &resp.Diagnostics)
	if !isPlaceholder(ctx, resp.State) {
		syncIdentity(ctx, resp.State, resp.Identity, &resp.Diagnostics)
	}
	m.tracked(ctx, resp.Diagnostics, "create")
}

// interruptedLogins: an operation that Ctrl-C cancelled drops the run's open logins
// (logins_stop.go), since Terraform will not close them.
func interruptedLogins(ctx context.Context, diags *diag.Diagnostics) {
	if ctx.Err() != nil {
		dropLoginsOnStop(ctx, diags)
	}
}

// tracked sends the analytics event of an operation that succeeded (nothing when analytics is off).
func (m *managedResource) tracked(ctx context.Context, diags diag.Diagnostics, action string) {
	if !diags.HasError() {
		m.impl.base().pd.analytics.track(ctx, m.impl.base().typeName, action)
	}
}

func (m *managedResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if notConfigured(m.impl.base().pd, &resp.Diagnostics) {
		return
	}
	defer m.impl.base().pd.outageWarnings(&resp.Diagnostics)
	m.impl.base().pd.walk.readOrPlan()
	if isPlaceholder(ctx, req.State) {
		// A lost create's placeholder (placeholder.go): look for what the create made.
		state, found, diags := resolvePlaceholder(ctx, m.impl.base().pd, m.findPlaceholder, req.State, req.Private.GetKey)
		resp.Diagnostics.Append(diags...)
		if diags.HasError() {
			return
		}
		if !found {
			resp.State.RemoveResource(ctx)
			// The framework wants an identity even for a removed object: the placeholder's (empty id).
			syncIdentity(ctx, req.State, resp.Identity, &resp.Diagnostics)
			return
		}
		req.State = state
	}
	m.impl.Read(ctx, req, resp)
	if resp.State.Raw.IsNull() {
		// Removed (gone at the API): the framework still wants the identity the object had.
		syncIdentity(ctx, req.State, resp.Identity, &resp.Diagnostics)
		return
	}
	syncIdentity(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

func (m *managedResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if notConfigured(m.impl.base().pd, &resp.Diagnostics) {
		return
	}
	defer m.impl.base().pd.outageWarnings(&resp.Diagnostics)
	m.impl.base().pd.walk.apply()
	m.impl.Update(ctx, req, resp)
	interruptedLogins(ctx, &resp.Diagnostics)
	keepPlannedState(ctx, req.Plan, &resp.State, &resp.Diagnostics)
	syncIdentity(ctx, resp.State, resp.Identity, &resp.Diagnostics)
	m.tracked(ctx, resp.Diagnostics, "update")
}

func (m *managedResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if notConfigured(m.impl.base().pd, &resp.Diagnostics) {
		return
	}
	defer m.impl.base().pd.outageWarnings(&resp.Diagnostics)
	if isPlaceholder(ctx, req.State) {
		state, found, diags := resolvePlaceholder(ctx, m.impl.base().pd, m.findPlaceholder, req.State, req.Private.GetKey)
		resp.Diagnostics.Append(diags...)
		if !found {
			return
		}
		req.State = state
	}
	m.impl.base().pd.walk.apply()
	m.impl.Delete(ctx, req, resp)
	interruptedLogins(ctx, &resp.Diagnostics)
	m.tracked(ctx, resp.Diagnostics, "delete")
}

// ImportState imports by identity (an import block with `identity = {...}`) here, and by a string
// id in the resource's own ImportState.
func (m *managedResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if notConfigured(m.impl.base().pd, &resp.Diagnostics) {
		return
	}
	if importByIdentity(ctx, m.impl.base().pd, req, resp) {
		return
	}
	m.impl.ImportState(ctx, req, resp)
}

func (m *managedResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if pd := m.impl.base().pd; pd != nil {
		pd.walk.readOrPlan()
	}
	defer m.impl.base().pd.outageWarnings(&resp.Diagnostics)
	if m.impl.base().pd.refusedAtPlan(ctx, req, &resp.Diagnostics) {
		return
	}
	if mp, ok := m.impl.(resource.ResourceWithModifyPlan); ok {
		mp.ModifyPlan(ctx, req, resp)
	}
}

// MoveState passes the resource's state movers through (a `moved` block from another provider's
// resource: move_state.go); none when the resource has none. A move is never configured: no guard.
func (m *managedResource) MoveState(ctx context.Context) []resource.StateMover {
	if ms, ok := m.impl.(resource.ResourceWithMoveState); ok {
		return ms.MoveState(ctx)
	}
	return nil
}

func (m *managedResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	checkTimeouts(ctx, req.Config, &resp.Diagnostics)
	if v, ok := m.impl.(resource.ResourceWithValidateConfig); ok {
		v.ValidateConfig(ctx, req, resp)
	}
}

// ---- data sources ----

// dataSourceBase is embedded by every data source: its full type name and the provider data.
type dataSourceBase struct {
	pd       *providerData
	typeName string
}

func (b *dataSourceBase) dsBase() *dataSourceBase { return b }

func (b *dataSourceBase) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = b.typeName
}

// dataSourceImpl is what a data source implements under the wrapper.
type dataSourceImpl interface {
	datasource.DataSource
	dsBase() *dataSourceBase
}

// manageDataSource wraps a data source with the configured guard.
func manageDataSource(impl dataSourceImpl) datasource.DataSource {
	return &managedDataSource{impl: impl}
}

type managedDataSource struct{ impl dataSourceImpl }

var (
	_ datasource.DataSourceWithConfigValidators = (*managedDataSource)(nil)
)

func (m *managedDataSource) Metadata(ctx context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	m.impl.Metadata(ctx, req, resp)
}

func (m *managedDataSource) Schema(ctx context.Context, req datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	m.impl.Schema(ctx, req, resp)
}

func (m *managedDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	m.impl.dsBase().pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (m *managedDataSource) ConfigValidators(ctx context.Context) []datasource.ConfigValidator {
	if v, ok := m.impl.(datasource.DataSourceWithConfigValidators); ok {
		return v.ConfigValidators(ctx)
	}
	return nil
}

func (m *managedDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if notConfigured(m.impl.dsBase().pd, &resp.Diagnostics) {
		return
	}
	defer m.impl.dsBase().pd.outageWarnings(&resp.Diagnostics)
	m.impl.Read(ctx, req, resp)
}

// ---- actions, the ephemeral resource and list resources ----

// configurable is what the wrappers of actions and of the ephemeral resource need of them: where
// their provider data goes (Configure is the wrapper's).
type configurable interface {
	dataSlot() **providerData
}

type actionImpl interface {
	action.Action
	configurable
}

// manageAction wraps an action with the configured guard (Configure and the guard are the
// wrapper's); its failures are classified by actionFailed.
func manageAction(impl actionImpl) action.Action { return &managedAction{impl: impl} }

type managedAction struct{ impl actionImpl }

var (
	_ action.ActionWithConfigure      = (*managedAction)(nil)
	_ action.ActionWithValidateConfig = (*managedAction)(nil)
)

func (m *managedAction) Metadata(ctx context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	m.impl.Metadata(ctx, req, resp)
}

func (m *managedAction) Schema(ctx context.Context, req action.SchemaRequest, resp *action.SchemaResponse) {
	m.impl.Schema(ctx, req, resp)
}

func (m *managedAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	*m.impl.dataSlot() = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (m *managedAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	if v, ok := m.impl.(action.ActionWithValidateConfig); ok {
		v.ValidateConfig(ctx, req, resp)
	}
}

func (m *managedAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	if notConfigured(*m.impl.dataSlot(), &resp.Diagnostics) {
		return
	}
	defer (*m.impl.dataSlot()).outageWarnings(&resp.Diagnostics)
	m.impl.Invoke(ctx, req, resp)
}

// actionFailed is the one classification of an action's failure: interrupted (Ctrl-C; what the API
// accepted goes on, interrupted says what to do), timed out (timedOut says what to do), or any other
// error, which goes through addError as other (err with what the action was doing).
func (pd *providerData) actionFailed(ctx context.Context, diags *diag.Diagnostics, summary string, err error, interrupted, timedOut string, other error) {
	if interruptedWait(diags, err, diag.SeverityError, summary+": interrupted", interrupted) {
		return
	}
	var timeout *wait.TimeoutError
	if errors.As(err, &timeout) {
		diags.AddError(summary+": timed out", timedOut)
		return
	}
	pd.addError(ctx, diags, summary, other)
}

type ephemeralImpl interface {
	ephemeral.EphemeralResource
	configurable
}

// manageEphemeral wraps an ephemeral resource with the configured guard.
func manageEphemeral(impl ephemeralImpl) ephemeral.EphemeralResource {
	return &managedEphemeral{impl: impl}
}

type managedEphemeral struct{ impl ephemeralImpl }

var (
	_ ephemeral.EphemeralResourceWithConfigure      = (*managedEphemeral)(nil)
	_ ephemeral.EphemeralResourceWithClose          = (*managedEphemeral)(nil)
	_ ephemeral.EphemeralResourceWithValidateConfig = (*managedEphemeral)(nil)
)

func (m *managedEphemeral) Metadata(ctx context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	m.impl.Metadata(ctx, req, resp)
}

func (m *managedEphemeral) Schema(ctx context.Context, req ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	m.impl.Schema(ctx, req, resp)
}

func (m *managedEphemeral) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	*m.impl.dataSlot() = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (m *managedEphemeral) ValidateConfig(ctx context.Context, req ephemeral.ValidateConfigRequest, resp *ephemeral.ValidateConfigResponse) {
	if v, ok := m.impl.(ephemeral.EphemeralResourceWithValidateConfig); ok {
		v.ValidateConfig(ctx, req, resp)
	}
}

func (m *managedEphemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	if notConfigured(*m.impl.dataSlot(), &resp.Diagnostics) {
		return
	}
	defer (*m.impl.dataSlot()).outageWarnings(&resp.Diagnostics)
	m.impl.Open(ctx, req, resp)
}

func (m *managedEphemeral) Close(ctx context.Context, req ephemeral.CloseRequest, resp *ephemeral.CloseResponse) {
	if c, ok := m.impl.(ephemeral.EphemeralResourceWithClose); ok {
		c.Close(ctx, req, resp)
	}
}

type listImpl interface {
	list.ListResource
	base() *resourceBase
}

// manageList wraps a list resource with the configured guard: an unconfigured provider's list is a
// stream of that one error.
func manageList(impl listImpl) list.ListResource { return &managedList{impl: impl} }

type managedList struct{ impl listImpl }

var _ list.ListResourceWithConfigure = (*managedList)(nil)

func (m *managedList) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	m.impl.Metadata(ctx, req, resp)
}

func (m *managedList) ListResourceConfigSchema(ctx context.Context, req list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	m.impl.ListResourceConfigSchema(ctx, req, resp)
}

func (m *managedList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	m.impl.base().pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (m *managedList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	if notConfigured(m.impl.base().pd, &diags) {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	m.impl.List(ctx, req, stream)
}

// checkTimeouts refuses, at validate and plan, a resource's `timeouts` value that is not a positive
// duration ("-5m", "0s"): the timeouts library accepts any duration, and such a value would fail
// the apply at once with an error that blames the API. The resources' ValidateConfig wrapper calls it.
func checkTimeouts(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) {
	if attrsOf(config.Raw).null("timeouts") {
		return // most configurations: no walk of the schema for it (attrs, values.go)
	}
	var t timeouts.Value
	if d := config.GetAttribute(ctx, path.Root("timeouts"), &t); d.HasError() || t.IsNull() || t.IsUnknown() {
		return
	}
	for name, v := range t.Attributes() {
		s, ok := v.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if d, err := time.ParseDuration(s.ValueString()); err == nil && d <= 0 {
			diags.AddAttributeError(path.Root("timeouts").AtName(name), "Invalid timeouts."+name,
				fmt.Sprintf("timeouts.%s must be a positive duration, such as \"30m\" or \"1h\", got %q: it is how long the "+
					"operation may take. Remove it to use the default.", name, s.ValueString()))
		}
	}
}
