// Package yamltext gives the errors of YAML configuration files a place. The YAML parser
// refuses a byte that is not UTF-8 or a control character without saying where it is
// ("yaml: control characters are not allowed"), and names no line for a syntax error on the
// first line, a bad alias, or a value a field's own decoder refuses (a duration, a URL):
// Check finds the first, before parsing, by line and column; Locate finds the line of the
// others.
package yamltext

import (
	"bytes"
	"fmt"
	"regexp"
	"unicode/utf8"
)

// Check returns nil when data is UTF-8 text of characters YAML allows (YAML 1.1's printable
// set: tab, line feed, carriage return, next line and everything from space up but DEL,
// the surrogates, U+FFFE and U+FFFF), else an error naming the line and column of the first
// character that is not.
func Check(data []byte) error {
	line, column := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return fmt.Errorf("line %d, column %d: byte 0x%02x is not UTF-8; save the file as UTF-8 text", line, column, data[i])
		case !allowed(r):
			return fmt.Errorf("line %d, column %d: character %U is not allowed in YAML; remove it or write it escaped in a double-quoted string", line, column, r)
		}
		if r == '\n' {
			line, column = line+1, 1
		} else {
			column++
		}
		i += size
	}
	return nil
}

// allowed reports whether YAML allows r in a document.
func allowed(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		return true
	case r < 0x20, r >= 0x7f && r < 0xa0: // C0 controls, DEL and C1 controls
		return false
	case r >= 0xd800 && r <= 0xdfff, r == 0xfffe, r == 0xffff:
		return false
	}
	return true
}

// hasLine matches the line the YAML parser names in its errors.
var hasLine = regexp.MustCompile(`\bline \d+\b`)

// Locate returns the error decode gave for data with the line it is about, when the error
// names none: the first line that, decoded with the lines before it, fails the same way.
// decode is the caller's own decoding, so that an error of a field's decoder (a duration,
// a URL) is found as well as one of the YAML parser. An error that names a line, and one
// no line explains, it returns as it is.
func Locate(data []byte, err error, decode func([]byte) error) error {
	if err == nil || hasLine.MatchString(err.Error()) {
		return err
	}
	for end, line := 0, 1; end < len(data); line++ {
		next := bytes.IndexByte(data[end:], '\n')
		if next < 0 {
			next = len(data) - end - 1
		}
		end += next + 1
		if e := decode(data[:end]); e != nil && e.Error() == err.Error() {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	return err
}
