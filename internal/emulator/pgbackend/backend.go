package pgbackend

import (
	"context"
	"errors"
	"sync"
	"time"
)

// opTimeout bounds one backend operation.
const opTimeout = 2 * time.Minute

// Backend adapts a Cluster to the emulator's DatabaseBackend interface (emulator.Options.Database).
//
// The emulator calls it with its state lock held, so slow work does not happen in the call:
// OnCreate and OnFork only queue the creation and answer the cluster's endpoint at once; Ready
// answers false until the database exists and a login with the password works. Every operation
// runs in the order of the calls (a fork after its source's creation, a drop after everything
// queued before it); OnPassword, OnPause and OnResume wait for their own operation, so their effect
// is visible when the emulator answers. OnDelete only queues the drop, so that a DELETE is answered
// at once as the API answers it (a drop forces a checkpoint, and ten of them in a row held every
// other request for seconds); Deleted reports when it is over.
type Backend struct {
	c    *Cluster
	logf func(format string, args ...any)

	mu       sync.Mutex
	last     chan struct{}            // closed when the last queued operation is over
	services map[string]*provision    // by service id
	drops    map[string]chan struct{} // queued drops by service id, closed when over
}

// provision is a queued creation (or fork).
type provision struct {
	done     chan struct{} // closed when it is over
	err      error         // set before done is closed
	password string        // the password a login was checked with once the database existed ("" if none)
}

// NewBackend returns the emulator backend of a cluster.
func NewBackend(c *Cluster) *Backend {
	last := make(chan struct{})
	close(last)
	return &Backend{c: c, logf: c.logf, last: last, services: map[string]*provision{}, drops: map[string]chan struct{}{}}
}

// Cluster is the backend's cluster.
func (b *Backend) Cluster() *Cluster { return b.c }

// enqueue runs op after every operation queued before it and returns a channel closed when op is
// over.
func (b *Backend) enqueue(op func(ctx context.Context)) chan struct{} {
	b.mu.Lock()
	prev, done := b.last, make(chan struct{})
	b.last = done
	b.mu.Unlock()
	go func() {
		defer close(done)
		<-prev
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		op(ctx)
	}()
	return done
}

// wait runs op in order and waits for it.
func (b *Backend) wait(op func(ctx context.Context) error) error {
	var err error
	<-b.enqueue(func(ctx context.Context) { err = op(ctx) })
	return err
}

// provisionAsync queues the creation of a service's database.
func (b *Backend) provisionAsync(id, what, password string, create func(ctx context.Context) (Service, error)) error {
	if err := checkID(id); err != nil {
		return err
	}
	p := &provision{done: make(chan struct{})}
	b.mu.Lock()
	b.services[id] = p
	b.mu.Unlock()
	b.enqueue(func(ctx context.Context) {
		defer close(p.done)
		s, err := create(ctx)
		p.err = err
		if err == nil && b.c.Ready(ctx, id, password) {
			p.password = password // Ready answers from this, without a login under the emulator's lock
		}
		switch {
		case err != nil:
			b.logf("pgbackend: %s of service %s failed (it stays CONFIGURING): %v", what, id, err)
		case s.Note != "":
			b.logf("pgbackend: service %s: %s", id, s.Note)
		}
	})
	return nil
}

// OnCreate queues the creation of the service's role and database; see CreateService.
func (b *Backend) OnCreate(serviceID, password string, timescaleDB bool) (string, int, error) {
	err := b.provisionAsync(serviceID, "creation", password, func(ctx context.Context) (Service, error) {
		return b.c.CreateService(ctx, serviceID, password, ServiceOptions{TimescaleDB: timescaleDB})
	})
	return b.c.Host(), b.c.Port(), err
}

// OnFork queues the copy of the source's database for the new service; see Fork.
func (b *Backend) OnFork(sourceID, serviceID, password string) (string, int, error) {
	if err := checkID(sourceID); err != nil {
		return "", 0, err
	}
	err := b.provisionAsync(serviceID, "fork", password, func(ctx context.Context) (Service, error) {
		return b.c.Fork(ctx, sourceID, serviceID, password)
	})
	return b.c.Host(), b.c.Port(), err
}

// OnPassword changes the service's password; see SetPassword.
func (b *Backend) OnPassword(serviceID, password string) error {
	return b.wait(func(ctx context.Context) error { return b.c.SetPassword(ctx, serviceID, password) })
}

// OnPause refuses logins and ends the sessions of a stopping service; see SetLogin.
func (b *Backend) OnPause(serviceID string) error {
	return b.wait(func(ctx context.Context) error { return b.c.SetLogin(ctx, serviceID, false) })
}

// OnResume allows logins again; see SetLogin.
func (b *Backend) OnResume(serviceID string) error {
	return b.wait(func(ctx context.Context) error { return b.c.SetLogin(ctx, serviceID, true) })
}

// OnReplicaSet creates (or sets the password of) the service's read-only role, which stands in for
// its read replica sets; see ReadOnlyRole. Log in as ReadOnlyUser(serviceID) with the service's
// password.
func (b *Backend) OnReplicaSet(serviceID, password string) (string, int, error) {
	err := b.wait(func(ctx context.Context) error {
		_, err := b.c.ReadOnlyRole(ctx, serviceID, password)
		return err
	})
	return b.c.Host(), b.c.Port(), err
}

// OnDelete queues the drop of the service's database and roles (see Drop) and returns at once; a
// failed drop is logged.
func (b *Backend) OnDelete(serviceID string) error {
	done := b.enqueue(func(ctx context.Context) {
		if err := b.c.Drop(ctx, serviceID); err != nil {
			b.logf("pgbackend: dropping the database of service %s: %v", serviceID, err)
		}
	})
	b.mu.Lock()
	delete(b.services, serviceID)
	b.drops[serviceID] = done
	b.mu.Unlock()
	return nil
}

// Deleted reports whether the drop queued by OnDelete is over (true when none was queued).
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

// Ready reports whether the service's database exists and a login with password works. It answers
// at once (false) while the creation is still queued or failed, and at once (true) for the password
// the provisioning logged in with; only a password changed since costs a login here.
func (b *Backend) Ready(serviceID, password string) bool {
	b.mu.Lock()
	p := b.services[serviceID]
	b.mu.Unlock()
	if p == nil {
		return false
	}
	select {
	case <-p.done:
	default:
		return false
	}
	if p.err != nil {
		return false
	}
	if p.password != "" && p.password == password {
		return true // checked by the provisioning, off the emulator's lock
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return b.c.Ready(ctx, serviceID, password)
}

// Close waits for the queued operations (at most timeout).
func (b *Backend) Close(timeout time.Duration) error {
	b.mu.Lock()
	last := b.last
	b.mu.Unlock()
	select {
	case <-last:
		return nil
	case <-time.After(timeout):
		return errors.New("pgbackend: queued operations still running")
	}
}
