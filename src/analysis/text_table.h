// A table of text cells printed with aligned columns: left-aligned text,
// right-aligned numbers, widths from the widest cell.
#pragma once

#include <string>
#include <vector>

namespace mimic::analysis {

class TextTable {
public:
    enum class Align { Left, Right };
    // One entry per column: its header and how it aligns.
    TextTable(std::vector<std::string> headers, std::vector<Align> aligns);
    void add_row(std::vector<std::string> cells);
    // Each line starts with `indent`; headers are followed by a rule.
    std::string render(const std::string& indent = "  ") const;
    bool empty() const { return rows_.empty(); }

private:
    std::vector<std::string> headers_;
    std::vector<Align> aligns_;
    std::vector<std::vector<std::string>> rows_;
};

// "1.5 KiB", "8.0 MiB": bytes for a reader.
std::string human_bytes(double bytes);
// Microseconds as milliseconds with three decimals: "12.345".
std::string ms_from_us(double us);
// "93.2%"
std::string percent(double share);
// v with `digits` decimals: "12.345".
std::string fixed(double v, int digits = 3);

}  // namespace mimic::analysis
