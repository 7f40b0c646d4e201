// Package clitest is what every Go program that runs a Terraform CLI against this repository's builds
// shares: the page runner (internal/pagetest) and the provider's terraform driver (tfdriver_test.go in
// internal/provider). It holds the one writer of a CLI configuration whose dev_overrides name local
// builds (CLIConfig: this provider and the other projects' providers of internal/thirdparty), the one
// start of the emulator's command (StartEmulator: a free loopback port, -url-file, a bounded wait),
// and the one synchronized buffer a command's output is written into (Buffer).
//
// The scripts are bash and have their own pair, in the same shape: use_cli_config (scripts/lib.sh)
// and start_emulator (scripts/emulator-lib.sh).
package clitest
