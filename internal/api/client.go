package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Config configures a Client.
type Config struct {
	// BaseURL is the API root, ending in the version segment (https://.../v1).
	BaseURL string
	// AccessKey and SecretKey are the HTTP Basic credentials.
	AccessKey, SecretKey string
	// Token, when set, is sent as `Authorization: Bearer <Token>` instead of the key pair (an OAuth
	// or client-credentials token). It and the key pair are mutually exclusive.
	Token string
	// ProjectID scopes every project call.
	ProjectID string
	// UserAgent defaults to "terraform-provider-dbcloud/dev"; see UserAgent.
	UserAgent string
	// UserAgentSuffix, if set, is appended to UserAgent after a space (e.g. a pipeline's name).
	UserAgentSuffix string
	// Timeout bounds each HTTP attempt; default 60s.
	Timeout time.Duration
	// Retry defaults to DefaultRetryPolicy.
	Retry *RetryPolicy
	// Limiter tunes the shared adaptive limiter; the zero value means DefaultLimiterConfig.
	Limiter LimiterConfig
	// Transport is the base round tripper (default http.DefaultTransport's clone).
	Transport http.RoundTripper
}

// UserAgent is the provider's User-Agent: it names the provider version and the Terraform version,
// e.g. "terraform-provider-dbcloud/1.2.0 (+https://registry.terraform.io/providers/dbcloud/dbcloud) Terraform/1.11.4".
func UserAgent(providerVersion, terraformVersion string) string {
	if providerVersion == "" {
		providerVersion = "dev"
	}
	ua := "terraform-provider-dbcloud/" + providerVersion + " (+https://registry.terraform.io/providers/dbcloud/dbcloud)"
	if terraformVersion != "" {
		ua += " Terraform/" + terraformVersion
	}
	return ua
}

// Client is the hand-written face of the generated client: project-scoped methods that return
// records or an *APIError / *TransportError.
type Client struct {
	gen       ClientInterface
	projectID string
	baseURL   string
	bearer    bool // the credentials are a Bearer token, not a key pair
	policy    RetryPolicy
	outage    *outageWatch
}

// IsLoopbackHost reports whether host (no port) names this machine.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ValidateBaseURL checks that u is an absolute http(s) URL, and that plain http is only used for a
// loopback host, so that credentials never cross a network in clear text.
func ValidateBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base_url %q is not a valid URL: %w", raw, err)
	}
	if u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("base_url %q must be an absolute https:// URL such as https://api.example.com/v1", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("base_url must not carry credentials: use access_key and secret_key")
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, fmt.Errorf("base_url %q must not carry a query or a fragment: they would be dropped from every request", raw)
	}
	if u.Scheme == "http" && !IsLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("base_url %q uses plain http:// for a host that is not loopback: the credentials would be sent unencrypted; use https://", raw)
	}
	return u, nil
}

// New builds a Client.
func New(cfg Config) (*Client, error) {
	u, err := ValidateBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	auth, secrets, err := authorization(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "terraform-provider-dbcloud/dev"
	}
	if suffix := strings.TrimSpace(cfg.UserAgentSuffix); suffix != "" {
		cfg.UserAgent += " " + suffix
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	policy := DefaultRetryPolicy
	if cfg.Retry != nil {
		policy = *cfg.Retry
	}
	policy = scaledBackoff(policy)
	base := cfg.Transport
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	httpClient := &http.Client{
		Timeout:   cfg.Timeout,
		Transport: &loggingTransport{next: base, secrets: secrets},
		// The API does not redirect. Following one would re-send the credentials (Go keeps the
		// Authorization header on a same-host redirect, even from https to http) and turn a POST
		// into a GET; the 3xx answer becomes an *APIError instead.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	server := strings.TrimRight(u.String(), "/") + "/"
	outage := newOutageWatch(policy, u.String())
	gen, err := NewClient(server,
		WithHTTPClient(&retryingDoer{
			client:  httpClient,
			policy:  policy,
			limiter: NewLimiter(cfg.Limiter),
			secrets: append(slices.Clone(secrets), cfg.AccessKey),
			rand:    rand.Float64,
			outage:  outage,
			contact: newContactWatch(policy, u.String()),
		}),
		WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", auth)
			req.Header.Set("User-Agent", cfg.UserAgent)
			req.Header.Set("Accept", "application/json")
			return nil
		}))
	if err != nil {
		return nil, err
	}
	return &Client{gen: gen, projectID: cfg.ProjectID, baseURL: strings.TrimRight(u.String(), "/"), bearer: cfg.Token != "",
		policy: policy, outage: outage}, nil
}

// authorization is the Authorization header of every request, and the secret strings that never
// reach a log or an error: a Bearer token, or the key pair as HTTP Basic.
func authorization(cfg Config) (header string, secrets []string, err error) {
	keys := cfg.AccessKey != "" || cfg.SecretKey != ""
	switch {
	case cfg.Token != "" && keys:
		return "", nil, errors.New("a token and an access key pair are two ways to authenticate: give one of them, not both")
	case cfg.Token != "":
		if strings.ContainsAny(cfg.Token, " \t\r\n") {
			return "", nil, errors.New("the token must be a single word (a JWT): it holds white space")
		}
		return "Bearer " + cfg.Token, []string{cfg.Token}, nil
	case cfg.AccessKey == "" || cfg.SecretKey == "":
		return "", nil, errors.New("a token, or an access key and a secret key, are required")
	}
	basic := base64.StdEncoding.EncodeToString([]byte(cfg.AccessKey + ":" + cfg.SecretKey))
	return "Basic " + basic, []string{cfg.SecretKey, basic}, nil
}

// TakeRiddenOutages returns the outages the client rode out (the API was away, then answered again)
// since the last call, and forgets them: the provider tells the user of each once.
func (c *Client) TakeRiddenOutages() []OutageWindow { return c.outage.take() }

// OutageBudget is how long a request whose context has no deadline rides out an outage
// (RetryPolicy.MaxElapsed: the provider's outage_timeout).
func (c *Client) OutageBudget() time.Duration {
	if c.policy.MaxElapsed <= 0 {
		return DefaultMaxElapsed
	}
	return c.policy.MaxElapsed
}

// ProjectID is the project every call is scoped to.
func (c *Client) ProjectID() string { return c.projectID }

// BaseURL is the API root the client talks to.
func (c *Client) BaseURL() string { return c.baseURL }

// UsesToken reports whether the client authenticates with a Bearer token (else with the key pair).
func (c *Client) UsesToken() bool { return c.bearer }

// finish turns a response into the decoded record (when out is non-nil) or a typed error.
func finish(op string, resp *http.Response, err error, out any, ok ...int) error {
	if err != nil {
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		if u := unreachableErrorOf(op, err); u != nil {
			return u
		}
		if o := outageErrorOf(op, err); o != nil {
			return o
		}
		return &TransportError{Operation: op, NotSent: notSent(err), Err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	body, rerr := io.ReadAll(resp.Body)
	if rerr != nil {
		return &TransportError{Operation: op, Err: rerr}
	}
	if !slices.Contains(ok, resp.StatusCode) {
		apiErr := newAPIError(op, resp.StatusCode, body)
		if resp.Request != nil {
			scheme, _, _ := strings.Cut(resp.Request.Header.Get("Authorization"), " ")
			apiErr.Bearer = strings.EqualFold(scheme, "Bearer")
		}
		if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 && apiErr.Message == "" {
			apiErr.Message = fmt.Sprintf("the API redirected to %s, which the client does not follow: check base_url", loc)
		}
		if since, until, attempts, down := outageFromAnswer(resp); down {
			return &OutageError{Operation: op, Since: since, Until: until, Attempts: attempts, Cause: apiErr}
		}
		return apiErr
	}
	if out == nil || len(body) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: HTTP %d with a body that is not the expected JSON: %w", op, resp.StatusCode, err)
	}
	return nil
}

func call[T any](op string, resp *http.Response, err error, ok ...int) (*T, error) {
	out := new(T)
	if err := finish(op, resp, err, out, ok...); err != nil {
		return nil, err
	}
	return out, nil
}

// ---- Services ----

// ListServices lists the project's services.
func (c *Client) ListServices(ctx context.Context) ([]Service, error) {
	resp, err := c.gen.ListServices(ctx, c.projectID)
	out, err := call[[]Service]("list services", resp, err, http.StatusOK)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// CreateService creates a service; the answer is the new service, not yet READY.
func (c *Client) CreateService(ctx context.Context, body ServiceCreate) (*Service, error) {
	resp, err := c.gen.CreateService(ctx, c.projectID, body)
	return call[Service](fmt.Sprintf("create service %q", body.Name), resp, err, http.StatusAccepted, http.StatusCreated, http.StatusOK)
}

// GetService reads one service.
func (c *Client) GetService(ctx context.Context, serviceID string) (*Service, error) {
	resp, err := c.gen.GetService(ctx, c.projectID, serviceID)
	return call[Service]("get service "+serviceID, resp, err, http.StatusOK)
}

// DeleteService starts the deletion of a service.
func (c *Client) DeleteService(ctx context.Context, serviceID string) error {
	resp, err := c.gen.DeleteService(ctx, c.projectID, serviceID)
	return finish("delete service "+serviceID, resp, err, nil, http.StatusAccepted, http.StatusNoContent, http.StatusOK)
}

// ResizeService changes the CPU and memory of a service (asynchronous). The sizes travel as digit
// strings, as the API wants them.
func (c *Client) ResizeService(ctx context.Context, serviceID string, cpuMillis, memoryGbs int) error {
	resp, err := c.gen.ResizeService(ctx, c.projectID, serviceID, resizeInput(cpuMillis, memoryGbs))
	return finish("resize service "+serviceID, resp, err, nil, http.StatusAccepted, http.StatusOK, http.StatusNoContent)
}

// RenameService renames a service (synchronous) and returns it.
func (c *Client) RenameService(ctx context.Context, serviceID, name string) (*Service, error) {
	resp, err := c.gen.RenameService(ctx, c.projectID, serviceID, ServiceRename{Name: name})
	return call[Service]("rename service "+serviceID, resp, err, http.StatusOK, http.StatusAccepted)
}

// StopService pauses a READY service: it goes PAUSING, then PAUSED. The answer is the service (its
// fields may be missing if a server answers without a body).
func (c *Client) StopService(ctx context.Context, serviceID string) (*Service, error) {
	resp, err := c.gen.StopService(ctx, c.projectID, serviceID)
	return call[Service]("stop service "+serviceID, resp, err, http.StatusAccepted, http.StatusOK, http.StatusNoContent)
}

// StartService resumes a PAUSED service: it goes RESUMING, then READY. The answer is the service
// (its fields may be missing if a server answers without a body).
func (c *Client) StartService(ctx context.Context, serviceID string) (*Service, error) {
	resp, err := c.gen.StartService(ctx, c.projectID, serviceID)
	return call[Service]("start service "+serviceID, resp, err, http.StatusAccepted, http.StatusOK, http.StatusNoContent)
}

// GetServiceLogs reads one page of a service's log. params may be nil; set params.Cursor to the
// previous page's LastCursor to page on. An answer without LastCursor is the last page.
func (c *Client) GetServiceLogs(ctx context.Context, serviceID string, params *GetServiceLogsParams) (*ServiceLogs, error) {
	if params == nil {
		params = &GetServiceLogsParams{}
	}
	resp, err := c.gen.GetServiceLogs(ctx, c.projectID, serviceID, params)
	return call[ServiceLogs]("get logs of service "+serviceID, resp, err, http.StatusOK)
}

// UpdatePassword sets the service's password (synchronous).
func (c *Client) UpdatePassword(ctx context.Context, serviceID, password string) error {
	resp, err := c.gen.UpdatePassword(ctx, c.projectID, serviceID, UpdatePasswordInput{Password: password})
	return finish("update password of service "+serviceID, resp, err, nil, http.StatusNoContent, http.StatusOK)
}

// SetEnvironment tags the service PROD or DEV (synchronous).
func (c *Client) SetEnvironment(ctx context.Context, serviceID string, env Environment) error {
	resp, err := c.gen.SetEnvironment(ctx, c.projectID, serviceID, SetEnvironmentInput{Environment: env})
	return finish("set environment of service "+serviceID, resp, err, nil, http.StatusOK, http.StatusAccepted, http.StatusNoContent)
}

// SetHA changes the HA replica counts (asynchronous).
func (c *Client) SetHA(ctx context.Context, serviceID string, in SetHAInput) error {
	resp, err := c.gen.SetHA(ctx, c.projectID, serviceID, in)
	return finish("set HA of service "+serviceID, resp, err, nil, http.StatusAccepted, http.StatusOK)
}

// EnablePooler turns the connection pooler on (synchronous).
func (c *Client) EnablePooler(ctx context.Context, serviceID string) error {
	resp, err := c.gen.EnablePooler(ctx, c.projectID, serviceID)
	return finish("enable connection pooler of service "+serviceID, resp, err, nil, http.StatusOK, http.StatusAccepted, http.StatusNoContent)
}

// DisablePooler turns the connection pooler off (synchronous).
func (c *Client) DisablePooler(ctx context.Context, serviceID string) error {
	resp, err := c.gen.DisablePooler(ctx, c.projectID, serviceID)
	return finish("disable connection pooler of service "+serviceID, resp, err, nil, http.StatusOK, http.StatusAccepted, http.StatusNoContent)
}

// ForkService creates a new service from serviceID; the answer is the new service.
func (c *Client) ForkService(ctx context.Context, serviceID string, body ForkServiceCreate) (*Service, error) {
	resp, err := c.gen.ForkService(ctx, c.projectID, serviceID, body)
	return call[Service]("fork service "+serviceID, resp, err, http.StatusAccepted, http.StatusCreated, http.StatusOK)
}

// AttachToVPC attaches the service to a VPC (asynchronous).
func (c *Client) AttachToVPC(ctx context.Context, serviceID, vpcID string) error {
	resp, err := c.gen.AttachServiceToVPC(ctx, c.projectID, serviceID, VPCAttachInput{VpcID: vpcID})
	return finish(fmt.Sprintf("attach service %s to VPC %s", serviceID, vpcID), resp, err, nil, http.StatusAccepted, http.StatusOK)
}

// DetachFromVPC detaches the service from a VPC (asynchronous).
func (c *Client) DetachFromVPC(ctx context.Context, serviceID, vpcID string) error {
	resp, err := c.gen.DetachServiceFromVPC(ctx, c.projectID, serviceID, VPCAttachInput{VpcID: vpcID})
	return finish(fmt.Sprintf("detach service %s from VPC %s", serviceID, vpcID), resp, err, nil, http.StatusAccepted, http.StatusOK)
}

// ---- Read replica sets ----

// ListReplicaSets lists a service's read replica sets.
func (c *Client) ListReplicaSets(ctx context.Context, serviceID string) ([]ReadReplicaSet, error) {
	resp, err := c.gen.ListReplicaSets(ctx, c.projectID, serviceID)
	out, err := call[[]ReadReplicaSet]("list read replica sets of service "+serviceID, resp, err, http.StatusOK)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// GetReplicaSet finds one replica set in the list; a missing one is an *APIError with status 404.
func (c *Client) GetReplicaSet(ctx context.Context, serviceID, replicaSetID string) (*ReadReplicaSet, error) {
	sets, err := c.ListReplicaSets(ctx, serviceID)
	if err != nil {
		return nil, err
	}
	withoutID := 0
	for i := range sets {
		switch {
		case sets[i].ID == nil || *sets[i].ID == "":
			withoutID++
		case *sets[i].ID == replicaSetID:
			return &sets[i], nil
		}
	}
	if withoutID > 0 {
		// Not a 404: the set may be one of those, and a Read that dropped it from state would make the
		// next apply create a second, paid set while the first still runs.
		return nil, fmt.Errorf("get read replica set %s of service %s: the API listed %d replica set(s) without an id, "+
			"so whether %s still exists cannot be told; this is a problem of the API: try again later", replicaSetID, serviceID, withoutID, replicaSetID)
	}
	return nil, &APIError{
		Operation:  fmt.Sprintf("get read replica set %s of service %s", replicaSetID, serviceID),
		StatusCode: http.StatusNotFound, Code: "NOT_FOUND",
		Message: fmt.Sprintf("read replica set %s is not in the list of service %s", replicaSetID, serviceID),
	}
}

// CreateReplicaSet creates a read replica set; the answer is the new set, status creating.
func (c *Client) CreateReplicaSet(ctx context.Context, serviceID string, body ReadReplicaSetCreate) (*ReadReplicaSet, error) {
	resp, err := c.gen.CreateReplicaSet(ctx, c.projectID, serviceID, body)
	return call[ReadReplicaSet](fmt.Sprintf("create read replica set %q on service %s", body.Name, serviceID), resp, err, http.StatusAccepted, http.StatusCreated, http.StatusOK)
}

// DeleteReplicaSet starts the deletion of a read replica set.
func (c *Client) DeleteReplicaSet(ctx context.Context, serviceID, replicaSetID string) error {
	resp, err := c.gen.DeleteReplicaSet(ctx, c.projectID, serviceID, replicaSetID)
	return finish(fmt.Sprintf("delete read replica set %s of service %s", replicaSetID, serviceID), resp, err, nil, http.StatusAccepted, http.StatusNoContent, http.StatusOK)
}

// ResizeReplicaSet changes the CPU and memory of a replica set (asynchronous). The node count is
// fixed at create: the API's resize cannot change it. The sizes travel as digit strings.
func (c *Client) ResizeReplicaSet(ctx context.Context, serviceID, replicaSetID string, cpuMillis, memoryGbs int) error {
	resp, err := c.gen.ResizeReplicaSet(ctx, c.projectID, serviceID, replicaSetID, resizeInput(cpuMillis, memoryGbs))
	return finish(fmt.Sprintf("resize read replica set %s of service %s", replicaSetID, serviceID), resp, err, nil, http.StatusAccepted, http.StatusOK, http.StatusNoContent)
}

// EnableReplicaSetPooler turns a replica set's connection pooler on.
func (c *Client) EnableReplicaSetPooler(ctx context.Context, serviceID, replicaSetID string) error {
	resp, err := c.gen.EnableReplicaSetPooler(ctx, c.projectID, serviceID, replicaSetID)
	return finish(fmt.Sprintf("enable connection pooler of read replica set %s", replicaSetID), resp, err, nil, http.StatusOK, http.StatusAccepted, http.StatusNoContent)
}

// DisableReplicaSetPooler turns a replica set's connection pooler off.
func (c *Client) DisableReplicaSetPooler(ctx context.Context, serviceID, replicaSetID string) error {
	resp, err := c.gen.DisableReplicaSetPooler(ctx, c.projectID, serviceID, replicaSetID)
	return finish(fmt.Sprintf("disable connection pooler of read replica set %s", replicaSetID), resp, err, nil, http.StatusOK, http.StatusAccepted, http.StatusNoContent)
}

// SetReplicaSetEnvironment tags a replica set PROD or DEV.
func (c *Client) SetReplicaSetEnvironment(ctx context.Context, serviceID, replicaSetID string, env Environment) error {
	resp, err := c.gen.SetReplicaSetEnvironment(ctx, c.projectID, serviceID, replicaSetID, SetEnvironmentInput{Environment: env})
	return finish(fmt.Sprintf("set environment of read replica set %s", replicaSetID), resp, err, nil, http.StatusOK, http.StatusAccepted, http.StatusNoContent)
}

// ---- VPCs ----

// ListVPCs lists the project's VPCs.
func (c *Client) ListVPCs(ctx context.Context) ([]VPC, error) {
	resp, err := c.gen.ListVPCs(ctx, c.projectID)
	out, err := call[[]VPC]("list VPCs", resp, err, http.StatusOK)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// CreateVPC creates a VPC (synchronous).
func (c *Client) CreateVPC(ctx context.Context, body VPCCreate) (*VPC, error) {
	resp, err := c.gen.CreateVPC(ctx, c.projectID, body)
	return call[VPC](fmt.Sprintf("create VPC %q", body.Name), resp, err, http.StatusCreated, http.StatusOK, http.StatusAccepted)
}

// GetVPC reads one VPC.
func (c *Client) GetVPC(ctx context.Context, vpcID string) (*VPC, error) {
	resp, err := c.gen.GetVPC(ctx, c.projectID, vpcID)
	return call[VPC]("get VPC "+vpcID, resp, err, http.StatusOK)
}

// DeleteVPC deletes a VPC; the API answers 409 while it is in use.
func (c *Client) DeleteVPC(ctx context.Context, vpcID string) error {
	resp, err := c.gen.DeleteVPC(ctx, c.projectID, vpcID)
	return finish("delete VPC "+vpcID, resp, err, nil, http.StatusNoContent, http.StatusOK, http.StatusAccepted)
}

// RenameVPC renames a VPC and returns it. The API answers without a body (or with a message), so
// the VPC is read again.
func (c *Client) RenameVPC(ctx context.Context, vpcID, name string) (*VPC, error) {
	resp, err := c.gen.RenameVPC(ctx, c.projectID, vpcID, VPCRename{Name: name})
	if err := finish("rename VPC "+vpcID, resp, err, nil, http.StatusOK, http.StatusAccepted, http.StatusNoContent); err != nil {
		return nil, err
	}
	return c.GetVPC(ctx, vpcID)
}

// ---- VPC peerings ----

// ListPeerings lists a VPC's peerings.
func (c *Client) ListPeerings(ctx context.Context, vpcID string) ([]Peering, error) {
	resp, err := c.gen.ListPeerings(ctx, c.projectID, vpcID)
	out, err := call[[]Peering]("list peerings of VPC "+vpcID, resp, err, http.StatusOK)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// CreatePeering creates a peering; it starts pending with an empty provisioned_id.
func (c *Client) CreatePeering(ctx context.Context, vpcID string, body PeeringCreate) (*Peering, error) {
	resp, err := c.gen.CreatePeering(ctx, c.projectID, vpcID, body)
	return call[Peering]("create peering on VPC "+vpcID, resp, err, http.StatusCreated, http.StatusOK, http.StatusAccepted)
}

// GetPeering reads one peering.
func (c *Client) GetPeering(ctx context.Context, vpcID, peeringID string) (*Peering, error) {
	resp, err := c.gen.GetPeering(ctx, c.projectID, vpcID, peeringID)
	return call[Peering](fmt.Sprintf("get peering %s of VPC %s", peeringID, vpcID), resp, err, http.StatusOK)
}

// DeletePeering deletes a peering.
func (c *Client) DeletePeering(ctx context.Context, vpcID, peeringID string) error {
	resp, err := c.gen.DeletePeering(ctx, c.projectID, vpcID, peeringID)
	return finish(fmt.Sprintf("delete peering %s of VPC %s", peeringID, vpcID), resp, err, nil, http.StatusNoContent, http.StatusOK, http.StatusAccepted)
}

// ---- Projects and credentials ----

// ListProjects lists the projects the credentials may use.
func (c *Client) ListProjects(ctx context.Context) ([]Project, error) {
	resp, err := c.gen.ListProjects(ctx)
	out, err := call[[]Project]("list projects", resp, err, http.StatusOK)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// GetAuthInfo describes the credentials (an API key and its project, or an OAuth token).
func (c *Client) GetAuthInfo(ctx context.Context) (*AuthInfo, error) {
	resp, err := c.gen.GetAuthInfo(ctx)
	return call[AuthInfo]("get auth info", resp, err, http.StatusOK)
}

// ---- Analytics ----

// Identify identifies the caller for usage analytics.
func (c *Client) Identify(ctx context.Context, properties map[string]any) error {
	in := IdentifyInput{}
	if properties != nil {
		in.Properties = &properties
	}
	resp, err := c.gen.Identify(ctx, in)
	return finish("analytics identify", resp, err, nil, http.StatusOK, http.StatusAccepted, http.StatusNoContent)
}

// Track records one analytics event.
func (c *Client) Track(ctx context.Context, event string, properties map[string]any) error {
	in := TrackInput{Event: event}
	if properties != nil {
		in.Properties = &properties
	}
	resp, err := c.gen.Track(ctx, in)
	return finish("analytics track "+event, resp, err, nil, http.StatusOK, http.StatusAccepted, http.StatusNoContent)
}
