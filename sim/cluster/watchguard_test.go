package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// watcherFunc adapts a function to Watcher.
type watcherFunc func(Change)

func (f watcherFunc) OnChange(ch Change) { f(ch) }

// A watcher that changes the cluster while it is told of a change breaks
// the order every later watcher relies on: the cluster refuses loudly,
// naming the call and the change being told. After the notification the
// same calls are fine.
func TestWatcherMustNotChangeTheClusterDuringANotification(t *testing.T) {
	c := New(fixedClock{}, NewSymbols(), NewResourceNames())
	var during func()
	c.Watch(watcherFunc(func(ch Change) {
		if during != nil && ch.Kind == NodeAdded {
			during()
		}
	}))
	during = func() { c.AddTaint(0, Taint{Key: c.Syms.Intern("k"), Effect: EffectNoSchedule}) }
	require.PanicsWithValue(t, "cluster: AddTaint called by a watcher while the change NodeAdded (pod -1, node 0) was being told; a watcher must react through an engine event", func() {
		c.AddNode(Node{Name: "a", State: NodeLaunching})
	})
	during = nil
	c2 := New(fixedClock{}, NewSymbols(), NewResourceNames())
	c2.Watch(watcherFunc(func(Change) {}))
	id := c2.AddNode(Node{Name: "b", State: NodeLaunching})
	require.NotPanics(t, func() { c2.AddTaint(id, Taint{Key: c2.Syms.Intern("k"), Effect: EffectNoSchedule}) })
}
