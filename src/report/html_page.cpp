#include "report/html_page.h"

#include "report/html_text.h"

namespace mimic::report {
namespace {

// Plain, printable, readable without any font or script from the network.
constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1000px; padding: 0 24px 48px; color: #222; }
h1 { font-size: 24px; margin: 24px 0 4px; }
h2 { font-size: 19px; margin: 0 0 10px; padding-top: 8px; border-top: 1px solid #ddd; }
section { margin: 28px 0; }
nav a { margin-right: 14px; }
table { border-collapse: collapse; margin: 8px 0 14px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f4f6fa; }
.facts td { text-align: left; border: none; padding: 1px 14px 1px 0; }
.missing { color: #7a5b00; background: #fff8e1; padding: 6px 10px; border-left: 3px solid #e0b000; }
svg.chart { display: block; margin: 8px 0 16px; font-size: 12px; }
svg.chart text { fill: #333; }
.generated { color: #777; font-size: 12px; }
)";

}  // namespace

HtmlPage::HtmlPage(const std::string& title) : title_(title) {}

void HtmlPage::begin_section(const std::string& id, const std::string& title) {
    toc_.emplace_back(id, title);
    body_ += "<section id=\"" + escape_html(id) + "\" data-section=\"" + escape_html(id) + "\"><h2>" +
             escape_html(title) + "</h2>\n";
}

void HtmlPage::end_section() { body_ += "</section>\n"; }

void HtmlPage::paragraph(const std::string& text) { body_ += "<p>" + escape_html(text) + "</p>\n"; }

void HtmlPage::missing(const std::string& text) { body_ += "<p class=\"missing\">" + escape_html(text) + "</p>\n"; }

void HtmlPage::table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                     const std::string& css_class) {
    body_ += css_class.empty() ? "<table>" : "<table class=\"" + escape_html(css_class) + "\">";
    if (!header.empty()) {
        body_ += "<tr>";
        for (const std::string& h : header) body_ += "<th>" + escape_html(h) + "</th>";
        body_ += "</tr>";
    }
    for (const auto& row : rows) {
        body_ += "<tr>";
        for (const std::string& cell : row) body_ += "<td>" + escape_html(cell) + "</td>";
        body_ += "</tr>";
    }
    body_ += "</table>\n";
}

void HtmlPage::facts(const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [k, v] : pairs) rows.push_back({k, v});
    table({}, rows, "facts");
}

std::string HtmlPage::finish() const {
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
                      escape_html(title_) + "</title>\n<style>" + kStyle + "</style></head>\n<body>\n<h1>" +
                      escape_html(title_) + "</h1>\n<nav>";
    for (const auto& [id, title] : toc_) out += "<a href=\"#" + escape_html(id) + "\">" + escape_html(title) + "</a>";
    out += "</nav>\n" + body_ + "</body></html>\n";
    return out;
}

}  // namespace mimic::report
