package eval

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"strings"
	"time"
)

// WriteHTML writes the report as one self-contained HTML page: inline SVG
// plots of pass rate, tokens, cost and latency per case, a table of the
// cases, and the trajectory and diff of every trial that failed. It loads
// nothing from elsewhere (no script, font, style sheet or image).
func (r *Report) WriteHTML(w io.Writer) error {
	rate := func(c CaseReport) float64 { return float64(c.Passes) / float64(max(len(c.Trials), 1)) }
	data := struct {
		*Report
		Plots    []template.HTML
		Failures []htmlFailure
	}{Report: r}
	data.Plots = []template.HTML{
		r.plot("Pass rate", rate, func(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }, true),
		r.plot("Tokens (mean per trial)", func(c CaseReport) float64 { return c.Tokens }, func(v float64) string { return fmt.Sprintf("%.0f", v) }, false),
		r.plot("Cost (mean per trial)", func(c CaseReport) float64 { return c.Cost }, func(v float64) string { return fmt.Sprintf("$%.4f", v) }, false),
		r.plot("Latency (mean per trial)", func(c CaseReport) float64 { return c.Latency.Seconds() }, func(v float64) string {
			return roundDuration(time.Duration(v * float64(time.Second))).String()
		}, false),
	}
	for _, c := range r.Cases {
		for _, t := range c.Trials {
			if !t.Passed {
				data.Failures = append(data.Failures, htmlFailure{Case: c, Trial: t})
			}
		}
	}
	return reportPage.Execute(w, data)
}

type htmlFailure struct {
	Case  CaseReport
	Trial *Trial
}

// plot draws one horizontal bar per case, as inline SVG.
func (r *Report) plot(title string, value func(CaseReport) float64, label func(float64) string, unit bool) template.HTML {
	const row, labelW, barW, valueW = 13, 170, 220, 80
	top := 0.0
	for _, c := range r.Cases {
		top = max(top, value(c))
	}
	if unit || top == 0 {
		top = max(top, 1)
	}
	h := row*len(r.Cases) + 8
	var b strings.Builder
	fmt.Fprintf(&b, `<figure><figcaption>%s</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">`,
		html.EscapeString(title), labelW+barW+valueW, h, html.EscapeString(title))
	for i, c := range r.Cases {
		y := 4 + i*row
		v := value(c)
		wd := int(float64(barW) * v / top)
		color := "#3a7d44"
		if !c.OK {
			color = "#c0392b"
		} else if c.FailsOnPurpose != "" {
			color = "#999"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" font-size="10">%s</text>`, labelW-6, y+10, html.EscapeString(clip(c.Name, 28)))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"><title>%s: %s</title></rect>`, labelW, y+2, max(wd, 1), row-3, color, html.EscapeString(c.Name), html.EscapeString(label(v)))
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="10">%s</text>`, labelW+wd+4, y+10, html.EscapeString(label(v)))
	}
	b.WriteString(`</svg></figure>`)
	return template.HTML(b.String())
}

var reportPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":  func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"ms":   func(d time.Duration) string { return roundDuration(d).String() },
	"cost": func(v float64) string { return fmt.Sprintf("$%.4f", v) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>byref eval: {{.Set}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.plots{display:flex;flex-wrap:wrap;gap:16px}figure{margin:0}figcaption{font-weight:600;margin-bottom:4px}
table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;font-size:13px}
.fail{color:#c0392b;font-weight:600}.pass{color:#3a7d44}.purpose{color:#777}
pre{background:#f6f6f6;padding:6px;white-space:pre-wrap;margin:2px 0}
.step{margin-left:12px}
</style></head><body>
<h1>byref eval: {{.Set}}</h1>
<p>{{.Good}} of {{len .Cases}} cases as they should be · model {{.Model}} · {{.Repetitions}} repetitions (pass@{{.K}}, pass^{{.K}}) · {{.Tokens}} tokens · {{cost .Cost}} · {{ms .Duration}} · {{.Started.Format "2006-01-02 15:04:05 UTC"}}</p>
<div class="plots">{{range .Plots}}{{.}}{{end}}</div>
<h2>Cases</h2>
<table><tr><th>case</th><th>verdict</th><th>passed</th><th>pass@{{.K}}</th><th>pass^{{.K}}</th><th>tokens</th><th>cached</th><th>cost</th><th>latency</th></tr>
{{range .Cases}}<tr><td>{{.Name}}</td><td class="{{if not .OK}}fail{{else if .FailsOnPurpose}}purpose{{else}}pass{{end}}">{{.Verdict}}</td><td>{{.Passes}}/{{len .Trials}}</td><td>{{pct .PassAtK}}</td><td>{{pct .PassHatK}}</td><td>{{printf "%.0f" .Tokens}}</td><td>{{printf "%.0f" .CacheReadTokens}}</td><td>{{cost .Cost}}</td><td>{{ms .Latency}}</td></tr>
{{end}}</table>
<h2>Failed trials</h2>
{{range .Failures}}<section class="trial" id="{{.Case.Name}}-{{.Trial.Repetition}}">
<h3>{{.Case.Name}}, trial {{.Trial.Repetition}}{{if .Case.FailsOnPurpose}} <span class="purpose">(fails on purpose: {{.Case.FailsOnPurpose}})</span>{{end}}</h3>
<p>status {{.Trial.Status}}{{with .Trial.Reason}} · {{.}}{{end}} · result <code>{{printf "%s" .Trial.Result}}</code></p>
<ul>{{range .Trial.Failures}}<li class="fail">{{.Expectation}}<pre>{{.Diff}}</pre></li>{{end}}</ul>
<details open><summary>Trajectory</summary>
{{range .Trial.Trajectory}}<div class="step">step {{.Step}} · {{.Kind}}{{with .Action}} <b>{{.}}</b>{{end}}{{with .Arguments}} <code>{{.}}</code>{{end}}{{if .Error}} <span class="fail">{{.Error}}</span>{{end}}{{with .Answer}} → {{.}}{{end}}{{with .Text}}<pre>{{.}}</pre>{{end}}{{with .Code}}<pre>{{.}}</pre>{{end}}</div>
{{end}}</details></section>
{{else}}<p>None.</p>{{end}}
</body></html>
`))
