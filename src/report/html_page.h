// The frame of an HTML report: head with inline CSS, a table of contents,
// sections, tables and notes. Text given to it is escaped here; SVG and HTML
// fragments made by the chart code are inserted as they are.
#pragma once

#include <string>
#include <vector>

namespace mimic::report {

class HtmlPage {
public:
    explicit HtmlPage(const std::string& title);

    void begin_section(const std::string& id, const std::string& title);
    void end_section();
    void paragraph(const std::string& text);
    // Why a section or chart is empty, and what would fill it.
    void missing(const std::string& text);
    void raw(const std::string& html) { body_ += html; }
    void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
               const std::string& css_class = "");
    // Key / value lines at the top of a section.
    void facts(const std::vector<std::pair<std::string, std::string>>& pairs);

    std::string finish() const;

private:
    std::string title_;
    std::vector<std::pair<std::string, std::string>> toc_;
    std::string body_;
};

}  // namespace mimic::report
