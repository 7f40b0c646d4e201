package pgbackend

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// opTimeout bounds one backend operation.
const opTimeout = 2 * time.Minute

// Backend adapts a Manager to the emulator's DatabaseBackend, ReplicaSetBackend and PoolerBackend
// interfaces (emulator.Options.Database): one instance per service, named by the service id; one
// hot standby per read replica set, named by the replica set's id (its nodes share it).
//
// The emulator calls it with its state lock held, so slow work does not happen in the call:
// OnCreate, OnFork, OnReplicaSet and OnStart reserve the instance's port, answer the endpoint at
// once and queue the work; Ready and ReplicaSetReady answer false until it is done and a login
// works. Operations on one service (its instance, its replica sets) run in the order of the calls;
// different services proceed in parallel. OnPassword, OnStop and OnPooler wait for their own
// operation, so their effect is visible when the emulator answers. OnDelete only queues the
// removal; Deleted reports when it is over.
type Backend struct {
	m    *Manager
	logf func(format string, args ...any)

	mu       sync.Mutex
	queues   map[string]chan struct{} // by service id: closed when its last queued operation is over
	ops      map[string]*op           // by instance name: the last creation or start
	drops    map[string]chan struct{} // queued removals by service id, closed when over
	replicas map[string][]string      // replica set ids by service id
	pending  sync.WaitGroup
}

// op is a queued creation (or fork, replica, start).
type op struct {
	done     chan struct{} // closed when it is over
	err      error         // set before done is closed
	password string        // the password a login was checked with ("" if none)
}

// NewBackend returns the emulator backend of a Manager.
func NewBackend(m *Manager) *Backend {
	return &Backend{m: m, logf: m.logf, queues: map[string]chan struct{}{}, ops: map[string]*op{},
		drops: map[string]chan struct{}{}, replicas: map[string][]string{}}
}

// Manager is the backend's Manager.
func (b *Backend) Manager() *Manager { return b.m }

// enqueue runs fn after every operation queued before it for the service and returns a channel
// closed when fn is over.
func (b *Backend) enqueue(serviceID string, fn func(ctx context.Context)) chan struct{} {
	b.mu.Lock()
	prev, done := b.queues[serviceID], make(chan struct{})
	b.queues[serviceID] = done
	b.pending.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.pending.Done()
		defer close(done)
		if prev != nil {
			<-prev
		}
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		fn(ctx)
		b.mu.Lock()
		if b.queues[serviceID] == done {
			delete(b.queues, serviceID)
		}
		b.mu.Unlock()
	}()
	return done
}

// wait runs fn in the service's order and waits for it.
func (b *Backend) wait(serviceID string, fn func(ctx context.Context) error) error {
	var err error
	<-b.enqueue(serviceID, func(ctx context.Context) { err = fn(ctx) })
	return err
}

// startOp queues work that makes the instance name usable, tracked for Ready. password ("" for a
// replica) is checked with a login once the work is over.
func (b *Backend) startOp(serviceID, name, what, password string, work func(ctx context.Context) (note string, err error)) {
	o := &op{done: make(chan struct{})}
	b.mu.Lock()
	b.ops[name] = o
	b.mu.Unlock()
	b.enqueue(serviceID, func(ctx context.Context) {
		defer close(o.done)
		note, err := work(ctx)
		o.err = err
		switch {
		case err != nil:
			b.logf("pgbackend: %s of %s failed: %v", what, name, err)
		case note != "":
			b.logf("pgbackend: service %s: %s", name, note)
		}
		if err == nil && password != "" && b.m.Ready(ctx, name, password) {
			o.password = password // Ready answers from this, without a login under the emulator's lock
		}
	})
}

// reserve answers the endpoint of a new instance.
func (b *Backend) reserve(name string) (string, int, error) {
	port, err := b.m.Reserve(name)
	if err != nil {
		return "", 0, err
	}
	return "127.0.0.1", port, nil
}

// OnCreate queues the start of the service's instance (see Manager.Create); addons names the
// extensions to create (time-series: timescaledb, ai: vector).
func (b *Backend) OnCreate(serviceID, password string, addons []string) (string, int, error) {
	host, port, err := b.reserve(serviceID)
	if err != nil {
		return "", 0, err
	}
	opts := CreateOptions{Password: password, TimeSeries: slices.Contains(addons, "time-series"), AI: slices.Contains(addons, "ai")}
	b.startOp(serviceID, serviceID, "creation", password, func(ctx context.Context) (string, error) {
		_, note, err := b.m.Create(ctx, serviceID, opts)
		return note, err
	})
	return host, port, nil
}

// OnFork queues the physical copy of the source's instance for the new service (see
// Manager.Fork). It waits for the operations queued for the source.
func (b *Backend) OnFork(sourceID, serviceID, password string) (string, int, error) {
	host, port, err := b.reserve(serviceID)
	if err != nil {
		return "", 0, err
	}
	b.mu.Lock()
	srcQueue := b.queues[sourceID]
	b.mu.Unlock()
	b.startOp(serviceID, serviceID, "fork", password, func(ctx context.Context) (string, error) {
		if srcQueue != nil {
			<-srcQueue
		}
		_, err := b.m.Fork(ctx, sourceID, serviceID, password)
		return "", err
	})
	return host, port, nil
}

// OnPassword changes tsdbadmin's password (on the instance; its replicas follow by streaming, and
// its pooler reads the new one).
func (b *Backend) OnPassword(serviceID, password string) error {
	err := b.wait(serviceID, func(ctx context.Context) error {
		if err := b.m.SetPassword(ctx, serviceID, password); err != nil {
			return err
		}
		for _, rs := range b.replicaSets(serviceID) {
			if err := b.m.SetPoolerPassword(rs, password); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		b.mu.Lock()
		if o := b.ops[serviceID]; o != nil {
			o.password = password
		}
		b.mu.Unlock()
	}
	return err
}

// OnStop stops the service's instance, its replica sets' standbys and its pooler: connections are
// refused.
func (b *Backend) OnStop(serviceID string) error {
	return b.wait(serviceID, func(context.Context) error {
		var errs []error
		for _, rs := range b.replicaSets(serviceID) {
			errs = append(errs, b.m.Stop(rs))
		}
		return errors.Join(append(errs, b.m.Stop(serviceID))...)
	})
}

// OnStart queues the start of the service's instance (with its data), then of its replica sets'
// standbys and its pooler; Ready answers true once a login works.
func (b *Backend) OnStart(serviceID string) error {
	b.mu.Lock()
	pw := ""
	if o := b.ops[serviceID]; o != nil {
		pw = o.password
	}
	b.mu.Unlock()
	b.startOp(serviceID, serviceID, "start", pw, func(ctx context.Context) (string, error) {
		if err := b.m.Start(ctx, serviceID); err != nil {
			return "", err
		}
		for _, rs := range b.replicaSets(serviceID) {
			if err := b.m.Start(ctx, rs); err != nil {
				return "", err
			}
		}
		return "", nil
	})
	return nil
}

// OnDelete queues the removal of the service's instance, its standbys and their data, and returns
// at once; a failed removal is logged.
func (b *Backend) OnDelete(serviceID string) error {
	done := b.enqueue(serviceID, func(context.Context) {
		for _, rs := range b.replicaSets(serviceID) {
			if err := b.m.Remove(rs); err != nil {
				b.logf("pgbackend: removing replica %s: %v", rs, err)
			}
		}
		if err := b.m.Remove(serviceID); err != nil {
			b.logf("pgbackend: removing the instance of service %s: %v", serviceID, err)
		}
	})
	b.mu.Lock()
	for _, rs := range b.replicas[serviceID] {
		delete(b.ops, rs)
	}
	delete(b.replicas, serviceID)
	delete(b.ops, serviceID)
	b.drops[serviceID] = done
	b.mu.Unlock()
	return nil
}

// Deleted reports whether the removal queued by OnDelete is over (true when none was queued).
func (b *Backend) Deleted(serviceID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	done, ok := b.drops[serviceID]
	if !ok {
		return true
	}
	select {
	case <-done:
		delete(b.drops, serviceID)
		return true
	default:
		return false
	}
}

// Ready reports whether the service's instance runs and tsdbadmin logs in with password over TLS.
// It answers at once (false) while the work is still queued or failed, and at once (true) for the
// password the work logged in with.
func (b *Backend) Ready(serviceID, password string) bool {
	o := b.op(serviceID)
	if o == nil {
		return false
	}
	select {
	case <-o.done:
	default:
		return false
	}
	if o.err != nil {
		return false
	}
	if o.password != "" && o.password == password {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return b.m.Ready(ctx, serviceID, password)
}

func (b *Backend) op(name string) *op {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ops[name]
}

func (b *Backend) replicaSets(serviceID string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.replicas[serviceID])
}

// OnReplicaSet queues the hot standby of a replica set (see Manager.Replica) and answers its
// endpoint. Its nodes share that one standby.
func (b *Backend) OnReplicaSet(serviceID, replicaSetID string) (string, int, error) {
	host, port, err := b.reserve(replicaSetID)
	if err != nil {
		return "", 0, err
	}
	b.mu.Lock()
	b.replicas[serviceID] = append(b.replicas[serviceID], replicaSetID)
	b.mu.Unlock()
	b.startOp(serviceID, replicaSetID, "replica", "", func(ctx context.Context) (string, error) {
		_, err := b.m.Replica(ctx, serviceID, replicaSetID)
		return "", err
	})
	return host, port, nil
}

// ReplicaSetFailed reports whether the replica set's standby could not be made (the emulator then
// shows the set in status error).
func (b *Backend) ReplicaSetFailed(replicaSetID string) bool {
	o := b.op(replicaSetID)
	if o == nil {
		return false
	}
	select {
	case <-o.done:
		return o.err != nil
	default:
		return false
	}
}

// ReplicaSetReady reports whether the replica set's standby runs.
func (b *Backend) ReplicaSetReady(replicaSetID string) bool {
	o := b.op(replicaSetID)
	if o == nil {
		return false
	}
	select {
	case <-o.done:
		return o.err == nil
	default:
		return false
	}
}

// OnReplicaSetDelete queues the removal of a replica set's standby and its data.
func (b *Backend) OnReplicaSetDelete(serviceID, replicaSetID string) error {
	b.mu.Lock()
	b.replicas[serviceID] = slices.DeleteFunc(b.replicas[serviceID], func(id string) bool { return id == replicaSetID })
	delete(b.ops, replicaSetID)
	b.mu.Unlock()
	b.enqueue(serviceID, func(context.Context) {
		if err := b.m.Remove(replicaSetID); err != nil {
			b.logf("pgbackend: removing replica %s: %v", replicaSetID, err)
		}
	})
	return nil
}

// OnPooler starts (enabled) or stops the PgBouncer in front of an instance: the service's
// (replicaSetID "") or a replica set's. It answers the pooler's endpoint; ErrNoPgBouncer when
// pgbouncer is not installed.
func (b *Backend) OnPooler(serviceID, replicaSetID, password string, enabled bool) (string, int, error) {
	name := serviceID
	if replicaSetID != "" {
		name = replicaSetID
	}
	if !b.m.PgBouncer() {
		return "", 0, ErrNoPgBouncer
	}
	var port int
	err := b.wait(serviceID, func(ctx context.Context) error {
		if !enabled {
			return b.m.DisablePooler(name)
		}
		if replicaSetID != "" {
			// The standby must run before PgBouncer points at it.
			if o := b.op(replicaSetID); o != nil {
				select {
				case <-o.done:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
		var err error
		port, err = b.m.EnablePooler(name, password)
		return err
	})
	return "127.0.0.1", port, err
}

// Close waits for the queued operations (at most timeout).
func (b *Backend) Close(timeout time.Duration) error {
	done := make(chan struct{})
	go func() { b.pending.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		return errors.New("pgbackend: queued operations still running")
	}
}
