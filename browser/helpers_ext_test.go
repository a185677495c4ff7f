package browser_test

import (
	"testing"

	"github.com/byref/byref/browser"
)

func needChromiumT(t testing.TB)              { t.Helper(); browser.NeedChromium(t) }
func sharedTab(t testing.TB) *browser.Browser { t.Helper(); return browser.SharedTab(t) }
func site(path string) string                 { return browser.SiteURL(path) }
func testOptions() browser.Options            { return browser.TestOptions() }
