// Package version holds the version of the seedscaler binary, stamped at build time.
package version

// Version is set with -ldflags "-X github.com/seedscaler/seedscaler/internal/version.Version=...".
var Version = "dev"
