package provider

// The one mechanism of in-place changes, for every resource that has calls of its own to make in an
// update: a list of entries (changes), each naming its attributes, saying when the plan changes them,
// and giving its calls (changeAction) with the values they take from the plan. Derived from a list:
// the calls of an update (actions), the calls after a create (afterCreate), the names of the planned
// changes (changedAttrs) and the parts of the description's "In place:" sentence (inPlace); the calls
// are made by one loop (runActions). The lists:
// serviceChanges (service_changes.go) and replicaSetChanges (read_replica_set_changes.go).

import (
	"context"
	"fmt"
	"strings"
)

// change is one thing an update of a resource whose model is M can change in place: one entry of its
// list.
type change[M any] struct {
	attrs   []string // the attributes, as the schema names them
	note    string   // how the description's "In place:" sentence names the change ("" for none)
	changed func(plan, state M) bool
	calls   func(plan, state M) []changeAction[M] // called only when changed
	// afterCreate: the create call cannot set it (or not all of it), so a create makes the change too,
	// once the object is ready: from the created record to the plan, or by createCalls when given
	// (a change no record shows; an update that finishes an interrupted create makes it again).
	afterCreate bool
	createCalls func(plan M) []changeAction[M]
}

// changes is a resource's one list of what an update can change in place, in the order an update
// makes the calls.
type changes[M any] []change[M]

// changeAction is one API call of an update with the value it takes from the plan: Call and Value
// are the printable, pure plan (String; a sensitive value is never printed); run makes the call (id:
// the object's), update and create are its failure summaries (in an update, and after a create: ""
// where a create never makes it), and record, when set, records it in the model of what holds so far
// once it succeeded.
type changeAction[M any] struct {
	Call      string
	Value     any
	sensitive bool

	update, create string
	run            func(ctx context.Context, pd *providerData, id string) error
	record         func(cur *M, plan M)
}

func (a changeAction[M]) String() string {
	switch {
	case a.sensitive:
		return a.Call + " (sensitive)"
	case a.Value == nil:
		return a.Call
	}
	return fmt.Sprintf("%s %v", a.Call, a.Value)
}

// onlyIf returns the actions when cond holds, else none.
func onlyIf[T any](cond bool, a ...T) []T {
	if cond {
		return a
	}
	return nil
}

// actions are the calls of the entries the change from state to plan changes, in the list's order.
// No change means no action.
func (cs changes[M]) actions(plan, state M) []changeAction[M] {
	var out []changeAction[M]
	for _, c := range cs {
		if c.changed(plan, state) {
			out = append(out, c.calls(plan, state)...)
		}
	}
	return out
}

// runActions is the one loop of the calls of an update and of those after a create, for every
// resource: it makes them in order on the object id and stops at the first that fails, which it
// returns with its error (its update and create are the failure's summaries). Each call that
// succeeded is recorded in cur (its record, with the plan's values) when cur is not nil.
func runActions[M any](ctx context.Context, pd *providerData, id string, actions []changeAction[M], plan M, cur *M) (failed changeAction[M], err error) {
	for _, a := range actions {
		if err := a.run(ctx, pd, id); err != nil {
			return a, err
		}
		if a.record != nil && cur != nil {
			a.record(cur, plan)
		}
	}
	return changeAction[M]{}, nil
}

// afterCreate are the calls a create makes once the object is ready: those of the entries marked
// afterCreate, from the created record to the plan (or their createCalls), in the list's order.
func (cs changes[M]) afterCreate(plan, created M) []changeAction[M] {
	var out []changeAction[M]
	for _, c := range cs {
		switch {
		case !c.afterCreate:
		case c.createCalls != nil:
			out = append(out, c.createCalls(plan)...)
		case c.changed(plan, created):
			out = append(out, c.calls(plan, created)...)
		}
	}
	return out
}

// changedAttrs names the entries the change from state to plan changes ("a/b" for an entry of two
// attributes).
func (cs changes[M]) changedAttrs(plan, state M) []string {
	var out []string
	for _, c := range cs {
		if c.changed(plan, state) {
			out = append(out, strings.Join(c.attrs, "/"))
		}
	}
	return out
}

// inPlace are the parts of the description's "In place:" sentence: each entry's attributes, with its
// note.
func (cs changes[M]) inPlace() []string {
	var parts []string
	for _, c := range cs {
		p := "`" + strings.Join(c.attrs, "`/`") + "`"
		if c.note != "" {
			p += " (" + c.note + ")"
		}
		parts = append(parts, p)
	}
	return parts
}
