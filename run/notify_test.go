package run

import "testing"

func TestNotifier(t *testing.T) {
	var n Notifier
	a1, a2, b := n.Wait("a"), n.Wait("a"), n.Wait("b")
	if a1 != a2 {
		t.Fatal("two waiters of one run got different channels")
	}
	n.Notify("a")
	n.Notify("nobody") // no waiter: nothing to do
	select {
	case <-a1:
	default:
		t.Fatal("Notify did not wake the run's waiter")
	}
	select {
	case <-b:
		t.Fatal("Notify woke another run's waiter")
	default:
	}
	select {
	case <-n.Wait("a"):
		t.Fatal("a new Wait after Notify is already closed")
	default:
	}
}
