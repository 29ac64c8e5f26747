//go:build dev

package main

import "github.com/spf13/cobra"

// devCommands are the development build's subcommands: the demo and the simulator.
func devCommands() []*cobra.Command {
	return []*cobra.Command{localCommand(), simulateCommand(), benchAutoscalingCommand()}
}
