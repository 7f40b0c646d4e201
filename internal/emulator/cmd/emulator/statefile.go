package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// Flag -state FILE: the emulator's state outlives the process. The file is loaded at start (a
// missing file is an empty state), saved whenever the state has changed (checked every
// saveInterval, so a burst of requests gives one write) and once more at shutdown.

// saveInterval is how often the state is compared with the last one saved.
const saveInterval = 250 * time.Millisecond

// persister saves the state of an emulator to a file.
type persister struct {
	emu    *emulator.Emulator
	path   string
	logger *log.Logger

	last []byte // the last state written (without its time stamp)
	done chan struct{}
	wg   sync.WaitGroup
}

// loadState restores the state from path (if set and present) and starts saving it there. With
// an empty path it answers a persister that does nothing.
func loadState(emu *emulator.Emulator, path string, stderr io.Writer) (*persister, error) {
	p := &persister{emu: emu, path: path, logger: log.New(stderr, "", log.LstdFlags|log.Lmicroseconds), done: make(chan struct{})}
	if path == "" {
		return p, nil
	}
	snap, ok, err := emulator.LoadState(path)
	if err != nil {
		return nil, err
	}
	if ok {
		if err := emu.Restore(snap); err != nil {
			return nil, fmt.Errorf("%w (file %s)", err, path)
		}
		n := 0
		for _, ps := range snap.Projects {
			if ps != nil {
				n += len(ps.Services)
			}
		}
		p.logger.Printf("emulator: state loaded from %s (%d services, saved %s)", path, n, snap.SavedAt.Format(time.RFC3339))
	}
	if err := p.save(); err != nil {
		return nil, fmt.Errorf("emulator: -state %s: %w", path, err)
	}
	p.wg.Add(1)
	go p.loop()
	return p, nil
}

func (p *persister) loop() {
	defer p.wg.Done()
	t := time.NewTicker(saveInterval)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			if err := p.save(); err != nil {
				p.logger.Printf("emulator: saving the state to %s: %v", p.path, err)
			}
		}
	}
}

// save writes the state if it changed since the last write.
func (p *persister) save() error {
	snap := p.emu.Snapshot()
	stamp := snap.SavedAt
	snap.SavedAt = time.Time{}
	b, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	if p.last != nil && bytes.Equal(b, p.last) {
		return nil
	}
	snap.SavedAt = stamp
	if err := emulator.SaveState(p.path, snap); err != nil {
		return err
	}
	p.last = b
	return nil
}

// stop ends the saving loop and saves the state a last time.
func (p *persister) stop() {
	if p.path == "" {
		return
	}
	close(p.done)
	p.wg.Wait()
	if err := p.save(); err != nil {
		p.logger.Printf("emulator: saving the state to %s: %v", p.path, err)
	}
}
