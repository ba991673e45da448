// Package jobvalidation checks the Kubernetes manifests sim sweep
// --emit-job writes against the API server's own validation: the Job
// through the batch/v1 Job registry strategy (defaulting, the generated
// selector, PrepareForCreate, Validate, as a create request goes), the
// ConfigMap through ValidateConfigMap. It imports k8s.io/kubernetes, which
// is too heavy for the main module, so it is a module of its own (make
// fidelity runs it).
package jobvalidation
