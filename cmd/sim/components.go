package main

// The components a run can have: the in-tree registration.
import _ "github.com/clustersim/clustersim/sim/component/builtin"
