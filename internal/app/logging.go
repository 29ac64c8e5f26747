package app

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"
	logsapi "k8s.io/component-base/logs/api/v1"
	// Registers the json log format with component-base.
	_ "k8s.io/component-base/logs/json/register"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Log formats of --logging-format.
const (
	LogFormatText = "text"
	LogFormatJSON = "json"
)

// loggingFlags are the flags of component-base's logging configuration every subcommand
// takes. The others it has (split streams, buffers) need alpha feature gates seedscaler
// does not expose, and the flush frequency keeps its default.
var loggingFlags = []string{"logging-format", "v", "vmodule"}

// Logging is the log configuration of every subcommand: the format, text (klog's) or json
// (one JSON object a line, for log collectors), the verbosity and, in text, per-file
// verbosity. controller-runtime, client-go and the parts all log through klog.
type Logging struct {
	Config  *logsapi.LoggingConfiguration
	applied bool
}

// NewLogging returns the defaults: text at verbosity 0.
func NewLogging() *Logging {
	return &Logging{Config: logsapi.NewLoggingConfiguration()}
}

// AddFlags registers --logging-format, -v and --vmodule.
func (l *Logging) AddFlags(fs *pflag.FlagSet) {
	all := pflag.NewFlagSet("logging", pflag.ContinueOnError)
	logsapi.AddFlags(l.Config, all)
	for _, name := range loggingFlags {
		f := all.Lookup(name)
		if name == "logging-format" {
			f.Usage = "Format of the log lines: text (klog's) or json (one JSON object a line, for log collectors)."
		}
		fs.AddFlag(f)
	}
}

// Validate checks the flags, naming the one to fix.
func (l *Logging) Validate() error {
	switch l.Config.Format {
	case LogFormatText:
	case LogFormatJSON:
		if len(l.Config.VModule) > 0 {
			return errors.New("--vmodule works only with --logging-format=text: drop --vmodule, or log text")
		}
	default:
		return fmt.Errorf("--logging-format=%s is no log format: use text or json", l.Config.Format)
	}
	return nil
}

// Apply makes the configuration klog's, writing to errOut, and controller-runtime's
// logger klog's. It can be applied once in a process.
func (l *Logging) Apply(errOut io.Writer) error {
	if err := l.Validate(); err != nil {
		return err
	}
	opts := &logsapi.LoggingOptions{ErrorStream: errOut, InfoStream: errOut}
	if err := logsapi.ValidateAndApplyWithOptions(l.Config, opts, nil); err != nil {
		return fmt.Errorf("logging flags: %w", err)
	}
	ctrl.SetLogger(klog.NewKlogr())
	l.applied = true
	return nil
}

// Fail reports the error a command ended with: as a log line when the format is json, so
// that every line of the process parses, else as a plain line "seedscaler: <error>".
func (l *Logging) Fail(errOut io.Writer, err error) {
	if l.applied && l.Config.Format == LogFormatJSON {
		klog.Background().WithCallDepth(1).Error(err, "Command failed")
		klog.Flush()
		return
	}
	_, _ = fmt.Fprintln(errOut, "seedscaler:", err)
}
