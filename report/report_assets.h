// The page template, stylesheet and script of `ktune report`, read from assets/ when ktune is
// built (report_assets.cc.in); the report needs no files at run time.
#pragma once

namespace ktune::report {

extern const char* const kReportTemplate;  // assets/report.html: {{STYLE}}, {{SCRIPT}}, {{DATA}}
extern const char* const kReportStyle;     // assets/report.css
extern const char* const kReportScript;    // assets/report.js

}  // namespace ktune::report
