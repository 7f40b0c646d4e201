package pagetest

import (
	"strings"
	"testing"
)

// repeat=N runs a script N times in a row; it is a number of runs, and only for scripts.
func TestShellMarkers(t *testing.T) {
	for _, tc := range []struct {
		marker  map[string]string
		script  bool
		repeat  int
		want    int
		wantErr string
	}{
		{marker: nil, script: true, repeat: 1},
		{marker: map[string]string{"repeat": "3"}, script: true, repeat: 3},
		{marker: map[string]string{"repeat": "2", "exit": "1"}, script: true, repeat: 2, want: 1},
		{marker: map[string]string{"repeat": "0"}, script: true, wantErr: "1 or more"},
		{marker: map[string]string{"repeat": "three"}, script: true, wantErr: "number of runs"},
		{marker: map[string]string{"repeat": ""}, script: true, wantErr: "number of runs"},
		{marker: map[string]string{"repeat": "3"}, script: false, wantErr: "for scripts"},
		{marker: map[string]string{"repeat": "3", "background": ""}, script: true, wantErr: "for scripts"},
		{marker: map[string]string{"exit": "x"}, script: false, wantErr: "exit= must be a number"},
	} {
		s := &shellRun{script: tc.script, repeat: 1}
		err := s.markers(Block{Marker: tc.marker})
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v (script %v): error %v, want one with %q", tc.marker, tc.script, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.marker, err)
		case s.repeat != tc.repeat || s.want != tc.want:
			t.Errorf("%v: repeat %d, exit %d; want %d, %d", tc.marker, s.repeat, s.want, tc.repeat, tc.want)
		}
	}
}
