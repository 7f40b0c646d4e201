package pagetest

import (
	"cmp"
	"os"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/clitest"
)

// The API emulator of a page: started with the one start of the emulator's command (clitest), stopped
// at the end of the page.

// startEmulator starts the page's emulator (-postgres from the page's postgres= marker, else the
// runner's) and answers its base URL.
func (r *pageRun) startEmulator() (string, error) {
	var err error
	r.emu, err = clitest.StartEmulator(clitest.EmulatorOptions{
		Binary: r.cfg.Emulator, Dir: r.root, AccessKey: accessKey, SecretKey: secretKey, ProjectID: projectID,
		Postgres: cmp.Or(r.page.Options["postgres"], r.cfg.Postgres),
	})
	if err != nil {
		return "", err
	}
	return r.emu.URL, nil
}

// teardown stops the page's background blocks and its emulator, and removes its directory.
func (r *pageRun) teardown() {
	for _, pg := range r.bg {
		killGroup(pg)
	}
	if r.emu != nil {
		r.emu.Stop()
	}
	if r.root != "" {
		_ = os.RemoveAll(r.root)
	}
}
