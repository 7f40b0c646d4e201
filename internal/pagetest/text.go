package pagetest

import (
	"regexp"
	"strings"
)

// Output helpers.

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n") + "\n"
}

var ansiRe = regexp.MustCompile("\x1b\\[[0-9;]*m")

func indent(s string) string {
	s = ansiRe.ReplaceAllString(s, "")
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return "        " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n        ") + "\n"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
