//go:build race

package simulation_test

// raceDetector is true when the tests run under -race (make race).
const raceDetector = true
