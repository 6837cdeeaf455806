package benchkind

import (
	"bytes"
	"encoding/csv"
	"strconv"
)

// The helpers below write figures the same way in every kind's files and tables.

// CSVOf renders columns and rows as CSV; nil when there are no rows (the file is not written).
func CSVOf(columns []string, rows [][]string) ([]byte, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(columns); err != nil {
		return nil, err
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Micros writes nanoseconds as microseconds with nccl-tests' two decimals.
func Micros(ns int64) string { return strconv.FormatFloat(float64(ns)/1000, 'f', 2, 64) }

// MicrosOrEmpty is Micros, or "" for a figure not measured (0).
func MicrosOrEmpty(ns int64) string {
	if ns <= 0 {
		return ""
	}
	return Micros(ns)
}

// Gigabytes writes MB/s as GB/s with two decimals.
func Gigabytes(mbps int64) string { return strconv.FormatFloat(float64(mbps)/1000, 'f', 2, 64) }

// OrDash is s, or "-" when empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }

// clip keeps at most n bytes of s, marking a cut with "...".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
