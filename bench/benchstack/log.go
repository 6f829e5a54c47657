package benchstack

import (
	"fmt"
	"os"
	"time"
)

// Verbose turns the progress lines of Logf on (the benches' -v flag).
var Verbose = true

// Logf prints one timestamped progress line on stderr while Verbose is set;
// the figures themselves go to stdout.
func Logf(format string, args ...any) {
	if Verbose {
		fmt.Fprintf(os.Stderr, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
	}
}
