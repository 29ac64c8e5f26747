package app

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// RootCommand is a binary's root command with subcommands, and the log configuration they
// share: the flags --logging-format, -v and --vmodule, applied before a subcommand runs.
func RootCommand(use, short string, subcommands ...*cobra.Command) (*cobra.Command, *Logging) {
	logging := NewLogging()
	root := &cobra.Command{
		Use:           use,
		Short:         short,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return logging.Apply(cmd.ErrOrStderr())
		},
	}
	logging.AddFlags(root.PersistentFlags())
	root.AddCommand(subcommands...)
	return root, logging
}

// Execute runs root until it returns or the process gets SIGINT or SIGTERM, and exits 1
// with the error, written as logging says, when it fails.
func Execute(root *cobra.Command, logging *Logging) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		logging.Fail(os.Stderr, err)
		os.Exit(1)
	}
}
