package provider

// The dbcloud_service_logs data source: a service's log (GET .../logs), paged through last_cursor
// with the one retrying client, filtered by the API, bounded by max_entries (the newest are kept).

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// defaultLogEntries is max_entries when the configuration leaves it out; maxLogEntries its bound.
const (
	defaultLogEntries = 200
	maxLogEntries     = 10000
)

// logSeverities are the severities the API answers (PostgreSQL's levels; DEBUG stands for DEBUG1-5),
// the values `severities` accepts.
var logSeverities = []string{"DEBUG", "LOG", "INFO", "NOTICE", "WARNING", "ERROR", "FATAL", "PANIC"}

// NewServiceLogsDataSource is the dbcloud_service_logs data source.
func NewServiceLogsDataSource() datasource.DataSource {
	return manageDataSource(&serviceLogsDataSource{dataSourceBase{typeName: serviceLogsTypeName}})
}

type serviceLogsDataSource struct{ dataSourceBase }

var _ datasource.DataSourceWithConfigValidators = (*serviceLogsDataSource)(nil)

type serviceLogsDataModel struct {
	ServiceID      types.String      `tfsdk:"service_id"`
	Since          types.String      `tfsdk:"since"`
	Until          types.String      `tfsdk:"until"`
	Search         types.String      `tfsdk:"search"`
	Severities     types.Set         `tfsdk:"severities"`
	Node           types.String      `tfsdk:"node"`
	MaxEntries     types.Int64       `tfsdk:"max_entries"`
	Entries        []serviceLogEntry `tfsdk:"entries"`
	Truncated      types.Bool        `tfsdk:"truncated"`
	SeverityCounts types.Map         `tfsdk:"severity_counts"`
	WarningCount   types.Int64       `tfsdk:"warning_count"`
	ErrorCount     types.Int64       `tfsdk:"error_count"`
	FatalCount     types.Int64       `tfsdk:"fatal_count"`
	PanicCount     types.Int64       `tfsdk:"panic_count"`
}

type serviceLogEntry struct {
	Timestamp types.String `tfsdk:"timestamp"`
	Severity  types.String `tfsdk:"severity"`
	Node      types.String `tfsdk:"node"`
	Message   types.String `tfsdk:"message"`
}

func (d *serviceLogsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	count := func(sev string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: fmt.Sprintf("How many entries of severity `%s` matched (also those "+
			"that `max_entries` left out of `entries`): `severity_counts[\"%s\"]`, 0 when none did.", sev, sev)}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The log of a service (its PostgreSQL server's messages), read through the API page by page, oldest first, " +
			"filtered by the API. At most `max_entries` entries are kept: **the newest** (the provider reads every page that matches, " +
			"and `truncated` says when older entries were left out; the counts cover them all). Narrow the read with `since` and " +
			"`severities`: a service's whole log can be long. A service that does not exist is an error, also one deleted while its " +
			"log is read; an API outage is waited out for `outage_timeout`, as every read is.",
		Attributes: map[string]schema.Attribute{
			"service_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the service whose log to read.",
				Validators:          []validator.String{serviceID()},
			},
			"since": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Only entries at or after this time: an RFC 3339 timestamp (`2025-01-31T12:00:00Z`), or a duration back " +
					"from now such as `15m`, `2h` or `1h30m` (units `h`, `m`, `s`; days are `24h`).",
				Validators: []validator.String{logTimeValidator{}},
			},
			"until": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only entries before this time, in the same forms as `since`; it must be after `since`.",
				Validators:          []validator.String{logTimeValidator{}},
			},
			"search": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only entries whose message contains this text (the API compares without regard to case).",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"severities": schema.SetAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Only entries of these severities: any of `" + strings.Join(logSeverities, "`, `") + "` (PostgreSQL's levels).",
				Validators: []validator.Set{setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(stringvalidator.OneOf(logSeverities...))},
			},
			"node": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only entries of this node of the service (`0` is the primary).",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"max_entries": schema.Int64Attribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: fmt.Sprintf("How many entries `entries` holds at most (default %d, at most %d): the newest that matched.",
					defaultLogEntries, maxLogEntries),
				Validators: []validator.Int64{int64validator.Between(1, maxLogEntries)},
			},
			"entries": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The entries that matched, oldest first: the newest `max_entries` of them.",
				NestedObject:        schema.NestedAttributeObject{Attributes: logEntryAttributes()},
			},
			"truncated": schema.BoolAttribute{
				Computed:            true,
				MarkdownDescription: "Whether more entries matched than `max_entries`: `entries` then holds the newest of them.",
			},
			"severity_counts": schema.MapAttribute{
				Computed:            true,
				ElementType:         types.Int64Type,
				MarkdownDescription: "How many entries of each severity matched, by severity (only severities that occur).",
			},
			"warning_count": count("WARNING"),
			"error_count":   count("ERROR"),
			"fatal_count":   count("FATAL"),
			"panic_count":   count("PANIC"),
		},
	}
}

func logEntryAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"timestamp": schema.StringAttribute{Computed: true, MarkdownDescription: "When the entry was written (RFC 3339, UTC); null when the API did not say."},
		"severity": schema.StringAttribute{Computed: true, MarkdownDescription: "The severity, such as `LOG`, `WARNING`, `ERROR` or `FATAL`; " +
			"null when the API did not say."},
		"node": schema.StringAttribute{Computed: true, MarkdownDescription: "The node the entry comes from, when known: the API's entries do " +
			"not name it, so it is the `node` argument when that is set (null otherwise), or the node an older server's plain line names."},
		"message": schema.StringAttribute{Computed: true, MarkdownDescription: "The message (with its `DETAIL` and `HINT` lines when it has them)."},
	}
}

func (d *serviceLogsDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{logWindowValidator{}}
}

func (d *serviceLogsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg serviceLogsDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	serviceID := cfg.ServiceID.ValueString()
	params, diags := logParamsOf(ctx, cfg, time.Now())
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	if cfg.MaxEntries.IsNull() || cfg.MaxEntries.IsUnknown() {
		cfg.MaxEntries = types.Int64Value(defaultLogEntries)
	}
	page := func(ctx context.Context, p *api.GetServiceLogsParams) (*api.ServiceLogs, error) {
		return d.pd.client.GetServiceLogs(ctx, serviceID, p)
	}
	got, err := readLogs(ctx, page, params, int(cfg.MaxEntries.ValueInt64()))
	gone := fmt.Sprintf("Project %s has no service with id %q. Check the id: services are listed by the dbcloud_services data source.",
		d.pd.client.ProjectID(), serviceID)
	if got.pages > 0 {
		gone = fmt.Sprintf("Service %s was deleted while its log was read (%d page(s) were read): there is no log to show any more.",
			serviceID, got.pages)
	}
	if d.pd.readFailed(ctx, &resp.Diagnostics, err, path.Root("service_id"), "Service not found", "Could not read the log of service "+serviceID,
		gone+"\n\n"+fmt.Sprint(err)) {
		return
	}
	resp.Diagnostics.Append(got.fill(ctx, &cfg)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

// logParamsOf is the API's query of the configuration: since and until resolved against now.
func logParamsOf(ctx context.Context, cfg serviceLogsDataModel, now time.Time) (api.GetServiceLogsParams, diag.Diagnostics) {
	var p api.GetServiceLogsParams
	var diags diag.Diagnostics
	for _, t := range []struct {
		v   types.String
		dst **time.Time
	}{{cfg.Since, &p.Since}, {cfg.Until, &p.Until}} {
		if s := t.v.ValueString(); s != "" {
			at, err := logTime(s, now)
			if err != nil {
				diags.AddError("Invalid time", err.Error())
			}
			*t.dst = &at
		}
	}
	if s := cfg.Search.ValueString(); s != "" {
		p.Search = &s
	}
	if n := cfg.Node.ValueString(); n != "" {
		p.Node = &n
	}
	if !cfg.Severities.IsNull() && !cfg.Severities.IsUnknown() {
		var sevs []string
		diags.Append(cfg.Severities.ElementsAs(ctx, &sevs, false)...)
		sort.Strings(sevs)
		p.Severities = &sevs
	}
	return p, diags
}

// logTime reads since or until: an RFC 3339 timestamp, or a positive duration back from now.
func logTime(s string, now time.Time) (time.Time, error) {
	if at, err := time.Parse(time.RFC3339, s); err == nil {
		return at.UTC(), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 timestamp (2025-01-31T12:00:00Z) nor a duration back from now "+
			"(15m, 2h, 1h30m; days are 24h)", s)
	}
	return now.Add(-d).UTC(), nil
}

// logTimeValidator checks since and until at plan time.
type logTimeValidator struct{}

var _ validator.String = logTimeValidator{}

func (logTimeValidator) Description(context.Context) string {
	return "value must be an RFC 3339 timestamp such as 2025-01-31T12:00:00Z, or a duration back from now such as 15m"
}

func (v logTimeValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (logTimeValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := logTime(req.ConfigValue.ValueString(), time.Now()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid time", fmt.Sprintf("Attribute %s: %v.", req.Path, err))
	}
}

// logWindowValidator refuses an until that is not after since (no entry could match).
type logWindowValidator struct{}

func (logWindowValidator) Description(context.Context) string {
	return "until must be after since"
}

func (v logWindowValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (logWindowValidator) ValidateDataSource(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var since, until types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("since"), &since)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("until"), &until)...)
	if since.ValueString() == "" || until.ValueString() == "" {
		return // null or unknown
	}
	now := time.Now()
	from, err1 := logTime(since.ValueString(), now)
	to, err2 := logTime(until.ValueString(), now)
	if err1 == nil && err2 == nil && !to.After(from) {
		resp.Diagnostics.AddAttributeError(path.Root("until"), "until is not after since",
			fmt.Sprintf("until (%s, %s) is not after since (%s, %s): no entry can match. A duration counts back from now, so "+
				"since = \"1h\" with until = \"15m\" is the hour up to a quarter of an hour ago.",
				until.ValueString(), to.Format(time.RFC3339), since.ValueString(), from.Format(time.RFC3339)))
	}
}

// ---- paging ----

// logPage reads one page of the log.
type logPage func(ctx context.Context, params *api.GetServiceLogsParams) (*api.ServiceLogs, error)

// logLine is one entry as the data source shows it (nil: not known).
type logLine struct {
	at                      *time.Time
	severity, node, message *string
}

// logsRead is what readLogs found.
type logsRead struct {
	kept      []logLine // the newest max entries, oldest first
	matched   int
	truncated bool
	counts    map[string]int64
	pages     int
}

// readLogs reads every page of the log that params select, keeping the newest max entries.
func readLogs(ctx context.Context, page logPage, params api.GetServiceLogsParams, max int) (logsRead, error) {
	out := logsRead{counts: map[string]int64{}}
	cursors := map[string]bool{}
	for {
		p, err := page(ctx, &params)
		if err != nil {
			return out, err
		}
		out.pages++
		for _, l := range pageLines(p, params.Node) {
			out.matched++
			if l.severity != nil {
				out.counts[*l.severity]++
			}
			out.kept = append(out.kept, l)
			if len(out.kept) >= 2*max { // keep the newest max, without copying on every entry
				out.kept = out.kept[:copy(out.kept, out.kept[len(out.kept)-max:])]
			}
		}
		next := deref(p.LastCursor)
		if next == "" {
			break
		}
		if cursors[next] {
			return out, fmt.Errorf("get logs: the API answered the cursor %q twice, after %d pages: the log cannot be read to its end; "+
				"this is a problem of the API: try again later", next, out.pages)
		}
		cursors[next] = true
		params.Cursor = &next
	}
	if len(out.kept) > max {
		out.kept = out.kept[len(out.kept)-max:]
	}
	out.truncated = out.matched > max
	return out, nil
}

// pageLines are a page's entries; an answer without entries (an older server) has its plain lines
// read as far as they can be. node is the node the query asked for: every entry is then of it.
func pageLines(p *api.ServiceLogs, node *string) []logLine {
	if p.Entries == nil {
		out := make([]logLine, 0, len(p.Logs))
		for _, s := range p.Logs {
			l := parsePlainLogLine(s)
			if l.node == nil {
				l.node = node
			}
			out = append(out, l)
		}
		return out
	}
	out := make([]logLine, 0, len(*p.Entries))
	for _, e := range *p.Entries {
		out = append(out, logLine{at: e.Timestamp, severity: e.Severity, node: node, message: e.Message})
	}
	return out
}

// plainLogLine is the form of a deprecated plain line: "<RFC 3339 time> [<node>] <SEVERITY>: <message>".
var plainLogLine = regexp.MustCompile(`(?s)^(\S+) (?:\[([^\]]*)\] )?([A-Z]+[0-9]?): ?(.*)$`)

// parsePlainLogLine reads what it can of a deprecated plain line: the time, node and severity when
// the line has the API's form, else the whole line as the message.
func parsePlainLogLine(s string) logLine {
	m := plainLogLine.FindStringSubmatch(s)
	if m == nil {
		return logLine{message: &s}
	}
	at, err := time.Parse(time.RFC3339Nano, m[1])
	if err != nil {
		return logLine{message: &s}
	}
	at = at.UTC()
	l := logLine{at: &at, severity: &m[3], message: &m[4]}
	if m[2] != "" {
		l.node = &m[2]
	}
	return l
}

// fill writes what was read into the model.
func (r logsRead) fill(ctx context.Context, m *serviceLogsDataModel) diag.Diagnostics {
	m.Entries = make([]serviceLogEntry, 0, len(r.kept))
	for _, l := range r.kept {
		e := serviceLogEntry{Severity: types.StringPointerValue(l.severity), Node: types.StringPointerValue(l.node),
			Message: types.StringPointerValue(l.message), Timestamp: types.StringNull()}
		if l.at != nil {
			e.Timestamp = types.StringValue(l.at.UTC().Format(time.RFC3339Nano))
		}
		m.Entries = append(m.Entries, e)
	}
	m.Truncated = types.BoolValue(r.truncated)
	var diags diag.Diagnostics
	m.SeverityCounts, diags = types.MapValueFrom(ctx, types.Int64Type, r.counts)
	m.WarningCount, m.ErrorCount = types.Int64Value(r.counts["WARNING"]), types.Int64Value(r.counts["ERROR"])
	m.FatalCount, m.PanicCount = types.Int64Value(r.counts["FATAL"]), types.Int64Value(r.counts["PANIC"])
	return diags
}
