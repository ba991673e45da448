//go:build !unix

package main

import "os"

// termWidth is the terminal's width in columns: unknown here (0), so
// tables are not fitted ($COLUMNS still counts).
func termWidth(*os.File) int { return 0 }
