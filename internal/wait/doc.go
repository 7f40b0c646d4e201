// Package wait is how the provider waits for the API: the one waiter (Waiter, with its pure polling
// schedule in Backoff and Schedule), the one busy-retry (WhileBusy: 409 "busy, try again" waited out,
// a lost answer or a 409 followed by a look at whether the call already took effect, an outage's lost
// answers sent again for the whole budget: OutageLike), the one delete
// wait (Delete) and the one lost-create lookup (FindCreated: a create whose answer was lost is
// resolved by looking, on a context that Ctrl-C does not cancel, never by creating again).
//
// It knows the API client's error types but nothing of the provider: every function takes the
// Backoff to poll with.
package wait
