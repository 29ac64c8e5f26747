//go:build !dev

package main

import "github.com/spf13/cobra"

// devCommands: the shipped build has none. `local` and `simulate` link the test harness
// and plotting, which have no place in the image (envtest's init even writes to /tmp,
// which a read-only root file system refuses).
func devCommands() []*cobra.Command { return nil }
