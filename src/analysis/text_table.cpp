#include "analysis/text_table.h"

#include <algorithm>

#include <fmt/format.h>

namespace mimic::analysis {

TextTable::TextTable(std::vector<std::string> headers, std::vector<Align> aligns)
    : headers_(std::move(headers)), aligns_(std::move(aligns)) {
    aligns_.resize(headers_.size(), Align::Left);
}

void TextTable::add_row(std::vector<std::string> cells) {
    cells.resize(headers_.size());
    rows_.push_back(std::move(cells));
}

std::string TextTable::render(const std::string& indent) const {
    std::vector<size_t> width(headers_.size(), 0);
    for (size_t c = 0; c < headers_.size(); ++c) {
        width[c] = headers_[c].size();
        for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
    }
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
        std::string text = indent;
        for (size_t c = 0; c < cells.size(); ++c) {
            if (c > 0) text += "  ";
            const size_t pad = width[c] - cells[c].size();
            if (aligns_[c] == Align::Right) text.append(pad, ' ');
            text += cells[c];
            if (aligns_[c] == Align::Left && c + 1 < cells.size()) text.append(pad, ' ');
        }
        while (!text.empty() && text.back() == ' ') text.pop_back();
        out += text;
        out.push_back('\n');
    };
    line(headers_);
    size_t total = 0;
    for (size_t c = 0; c < width.size(); ++c) total += width[c] + (c > 0 ? 2 : 0);
    out += indent + std::string(total, '-') + "\n";
    for (const auto& row : rows_) line(row);
    return out;
}

std::string human_bytes(double bytes) {
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    size_t unit = 0;
    while (bytes >= 1024.0 && unit + 1 < std::size(kUnits)) {
        bytes /= 1024.0;
        ++unit;
    }
    if (unit == 0) return fmt::format("{:.0f} B", bytes);
    return fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

std::string ms_from_us(double us) { return fmt::format("{:.3f}", us / 1000.0); }

std::string percent(double share) { return fmt::format("{:.1f}%", share * 100.0); }

std::string fixed(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }

}  // namespace mimic::analysis
