// Package testscript runs data-driven test files: each file is a list of
// blocks, each a command, optional input lines and the output expected
// from it, run in order against one handler (in the style of
// cockroachdb/datadriven and etcd-io/raft's testdata). Test code only.
//
// A block:
//
//	command pos key=value key=v1,v2 key="a b"
//	optional input lines (a YAML manifest, say)
//	----
//	expected output, up to the first blank line
//
// Output that holds blank lines is fenced by a second separator line
// before and after it:
//
//	----
//	----
//	first paragraph
//
//	second paragraph
//	----
//	----
//
// Lines outside blocks that are blank or start with # are comments, kept
// as they are.
//
// `go test ./sim/karpenter -run TestScripts -update` runs the files and
// rewrites each block's expected output with what the handler printed, in
// place and atomically (a temporary file renamed over the old one); read
// the diff before committing. The flag exists in the test binaries of the
// packages that run scripts (name them rather than ./...). Without
// -update a block whose output differs fails the test with its file:line
// and a diff.
package testscript
