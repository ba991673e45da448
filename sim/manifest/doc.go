// Package manifest reads users' Kubernetes manifests (and the simulator's own
// documents) and reports bad input with precise, friendly errors.
//
// Users write these files by hand, copy them from other clusters, or render
// them with templating tools, and then debug them with nothing but our error
// message. So every problem is reported as an [Error] that names the file, the
// 1-based line, the field path (for example
// spec.template.spec.containers[0].resources.requests.cpu) and, when we can
// tell, what to do about it. Three rules follow from that:
//
//   - Never panic on input, however hostile: sizes ([MaxFileSize]), nesting
//     ([MaxDepth]) and alias expansion are capped.
//   - Never silently drop a field: [Document.Decode] is strict, so a typo such
//     as "replicass" is an error (with a "did you mean" hint) rather than a
//     default value the user did not ask for.
//   - Report everything found (up to [MaxErrors]) in one go, sorted by file
//     and line, so a user can fix a file in one pass.
//
// Input can be multi-document YAML (documents separated by ---), JSON (one
// object, several concatenated objects, or a List), a file or a folder, on
// disk or in an [io/fs.FS] such as an embed.FS. Parsing keeps the yaml.Node
// tree (go.yaml.in/yaml/v3) of every document, because that tree carries the
// line numbers that the errors need.
//
// # Error format
//
// [Error.Error] renders as
//
//	FILE:LINE: PATH: MESSAGE; HINT
//
// where ":LINE" is left out when the line is unknown (0), "PATH: " is left out
// for document-level problems, and "; HINT" is left out when there is no hint.
// Paths join struct fields and simple map keys with dots, list items are
// [N], and other map keys are quoted: metadata.labels["app.kubernetes.io/name"].
// Examples (from the tests):
//
//	deploy.yaml:6: spec.replicass: unknown field "replicass"; did you mean "replicas"?
//	deploy.yaml:6: spec.replicas: cannot use "three" as an integer (want a whole number, e.g. 3)
//	t.yaml:4: syntax error: found character that cannot start any token; YAML does not allow tabs for indentation: indent with spaces
//
// [Errors] renders one error per line.
//
// Every error returned by this package is of type [Errors] (which unwraps to
// its *[Error] elements, so errors.As with a *Error target also works).
package manifest
