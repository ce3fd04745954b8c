package main

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// exitNumber finds the exit codes a help text promises: a number after
// "exit"/"exits"/"exit code", or in a list that follows one ("exits 0
// when ..., 1 when ..., and 2 when ...").
var exitNumber = regexp.MustCompile(`(?:^|[\s(,])(\d{1,3}) (?:when|on|if|after)\b`)

// TestHelpExitCodesMatchTheCode reads every command's --help and checks
// that each exit code it names in a sentence about exiting is one the
// code returns: exitOK, exitFailed, exitUsage, or a signal's 128+n.
// Five help texts once promised 3 for usage errors that exit 2.
func TestHelpExitCodesMatchTheCode(t *testing.T) {
	valid := map[int]string{exitOK: "exitOK", exitFailed: "exitFailed", exitUsage: "exitUsage", 130: "SIGINT", 143: "SIGTERM"}
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	var walk func(*cobra.Command)
	checked := 0
	walk = func(c *cobra.Command) {
		for _, sentence := range strings.Split(strings.ReplaceAll(c.Long, "\n", " "), ". ") {
			if !strings.Contains(sentence, "exit") {
				continue
			}
			for _, m := range exitNumber.FindAllStringSubmatch(sentence, -1) {
				n, _ := strconv.Atoi(m[1])
				checked++
				if _, ok := valid[n]; !ok {
					t.Errorf("%s --help promises exit code %d, which the command never returns (codes: 0 %s, 1 %s, 2 %s, 130/143 signals):\n%s",
						c.CommandPath(), n, valid[0], valid[1], valid[2], sentence)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if checked < 10 {
		t.Fatalf("found only %d exit codes in the help texts: the pattern no longer reads them", checked)
	}
}
