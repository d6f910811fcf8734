// Command manydb benchmarks embedded databases for the one-store-per-agent
// pattern. See 'manydb help' and the README.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"manydb/internal/cli"
)

// version is set at build time: -ldflags "-X main.version=…".
var version = "dev"

func main() {
	// Ctrl-C, kill and a closed terminal (SIGHUP) all stop a study the same
	// way: the phase in progress ends, and manydb says how to resume.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := cli.Run(ctx, os.Args[1:], cli.Options{
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		BinDir:  cli.DefaultBinDir(),
		Version: version,
		Environ: os.Environ(),
	})
	stop()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "manydb:", err)
	os.Exit(cli.ExitCode(err))
}
