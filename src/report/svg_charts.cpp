#include "report/svg_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/html_text.h"

namespace mimic::report {
namespace {

constexpr const char* kPalette[] = {"#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6"};

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string shorten(const std::string& s, size_t max) {
    return s.size() <= max ? s : s.substr(0, max - 1) + "\xE2\x80\xA6";  // an ellipsis
}

std::string open_svg(const std::string& name, double width, double height) {
    return "<svg class=\"chart\" data-chart=\"" + escape_html(name) + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
           num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
           "\" role=\"img\">";
}

std::string text(double x, double y, const std::string& s, const std::string& extra = "") {
    return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + extra + ">" + escape_html(s) + "</text>";
}

std::string tooltip_of(const Bar& b, const std::string& unit) {
    return b.tooltip.empty() ? b.label + ": " + format_number(b.value) + " " + unit : b.tooltip;
}

double max_of(const std::vector<Bar>& bars) {
    double m = 0;
    for (const Bar& b : bars) m = std::max(m, b.value);
    return m;
}

// Linear blend from white to a dark blue by t in [0, 1].
std::string blue(double t) {
    t = std::clamp(t, 0.0, 1.0);
    const int r = static_cast<int>(255 - t * (255 - 8));
    const int g = static_cast<int>(255 - t * (255 - 48));
    const int b = static_cast<int>(255 - t * (255 - 107));
    char buf[16];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
    return buf;
}

}  // namespace

std::string format_number(double v) {
    char buf[48];
    const double a = std::fabs(v);
    if (a >= 100 || a == 0) std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (a >= 1) std::snprintf(buf, sizeof buf, "%.2f", v);
    else std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string bar_chart(const std::string& name, const std::vector<Bar>& bars, const std::string& unit) {
    constexpr double kLabelW = 260, kBarW = 380, kRowH = 20, kWidth = kLabelW + kBarW + 110;
    const double height = kRowH * static_cast<double>(bars.size()) + 8;
    const double top = std::max(max_of(bars), 1e-12);
    std::string svg = open_svg(name, kWidth, height);
    for (size_t i = 0; i < bars.size(); ++i) {
        const Bar& b = bars[i];
        const double y = 4 + kRowH * static_cast<double>(i);
        const double w = std::max(0.0, b.value) / top * kBarW;
        svg += "<g class=\"mark\"><title>" + escape_html(tooltip_of(b, unit)) + "</title>";
        svg += text(kLabelW - 6, y + 14, shorten(b.label, 38), " text-anchor=\"end\"");
        svg += "<rect x=\"" + num(kLabelW) + "\" y=\"" + num(y + 2) + "\" width=\"" + num(std::max(w, 1.0)) +
               "\" height=\"" + num(kRowH - 5) + "\" fill=\"" + kPalette[0] + "\"/>";
        svg += text(kLabelW + w + 6, y + 14, format_number(b.value) + " " + unit);
        svg += "</g>";
    }
    return svg + "</svg>";
}

std::string column_chart(const std::string& name, const std::vector<Bar>& bars, const std::string& unit,
                         double reference, const std::string& reference_label) {
    constexpr double kLeft = 60, kRight = 20, kTop = 20, kPlotH = 170, kBottom = 60, kWidth = 760;
    const double top = std::max({max_of(bars), reference, 1e-12}) * 1.1;
    const double plot_w = kWidth - kLeft - kRight;
    const double slot = plot_w / static_cast<double>(std::max<size_t>(bars.size(), 1));
    auto y_of = [&](double v) { return kTop + kPlotH - std::max(0.0, v) / top * kPlotH; };
    std::string svg = open_svg(name, kWidth, kTop + kPlotH + kBottom);
    svg += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kTop + kPlotH) + "\" x2=\"" + num(kWidth - kRight) +
           "\" y2=\"" + num(kTop + kPlotH) + "\" stroke=\"#888\"/>";
    svg += text(kLeft - 6, y_of(top / 1.1) + 4, format_number(top / 1.1), " text-anchor=\"end\"");
    svg += text(kLeft - 6, kTop + kPlotH + 4, "0", " text-anchor=\"end\"");
    svg += text(4, kTop - 6, unit);
    for (size_t i = 0; i < bars.size(); ++i) {
        const Bar& b = bars[i];
        const double x = kLeft + slot * static_cast<double>(i);
        const double y = y_of(b.value);
        svg += "<g class=\"mark\"><title>" + escape_html(tooltip_of(b, unit)) + "</title>";
        svg += "<rect x=\"" + num(x + slot * 0.15) + "\" y=\"" + num(y) + "\" width=\"" + num(slot * 0.7) +
               "\" height=\"" + num(std::max(kTop + kPlotH - y, 1.0)) + "\" fill=\"" + kPalette[0] + "\"/>";
        // Labels thin out to every k-th bar when bars are narrower than a label.
        const size_t every = static_cast<size_t>(std::ceil(36.0 / slot));
        if (i % every == 0) svg += text(x + slot / 2, kTop + kPlotH + 16, shorten(b.label, 14), " text-anchor=\"middle\"");
        svg += "</g>";
    }
    if (reference >= 0) {
        const double y = y_of(reference);
        svg += "<g class=\"mark\"><title>" + escape_html(reference_label + ": " + format_number(reference) + " " + unit) +
               "</title><line x1=\"" + num(kLeft) + "\" y1=\"" + num(y) + "\" x2=\"" + num(kWidth - kRight) +
               "\" y2=\"" + num(y) + "\" stroke=\"" + kPalette[1] + "\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>";
        svg += text(kWidth - kRight, y - 5, reference_label, " text-anchor=\"end\" fill=\"" + std::string(kPalette[1]) + "\"") +
               "</g>";
    }
    return svg + "</svg>";
}

std::string line_chart(const std::string& name, const std::vector<Series>& series, const std::string& x_label,
                       const std::string& y_unit) {
    constexpr double kLeft = 70, kRight = 20, kTop = 24, kPlotH = 200, kBottom = 40, kWidth = 760;
    double top = 1e-12;
    size_t points = 1;
    for (const Series& s : series) {
        for (double y : s.ys) top = std::max(top, y);
        points = std::max(points, s.ys.size());
    }
    top *= 1.1;
    const double plot_w = kWidth - kLeft - kRight;
    const double step = points > 1 ? plot_w / static_cast<double>(points - 1) : 0;
    auto y_of = [&](double v) { return kTop + kPlotH - v / top * kPlotH; };
    std::string svg = open_svg(name, kWidth, kTop + kPlotH + kBottom + 18 * static_cast<double>(series.size()));
    svg += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kTop + kPlotH) + "\" x2=\"" + num(kWidth - kRight) +
           "\" y2=\"" + num(kTop + kPlotH) + "\" stroke=\"#888\"/>";
    svg += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(kLeft) + "\" y2=\"" +
           num(kTop + kPlotH) + "\" stroke=\"#888\"/>";
    for (double f : {0.0, 0.5, 1.0}) {
        const double v = top / 1.1 * f;
        svg += text(kLeft - 6, y_of(v) + 4, format_number(v), " text-anchor=\"end\"");
    }
    svg += text(4, kTop - 8, y_unit);
    svg += text(kLeft + plot_w / 2, kTop + kPlotH + 28, x_label, " text-anchor=\"middle\"");
    for (size_t k = 0; k < series.size(); ++k) {
        const Series& s = series[k];
        const char* colour = kPalette[k % std::size(kPalette)];
        std::string pts;
        for (size_t i = 0; i < s.ys.size(); ++i)
            pts += num(kLeft + step * static_cast<double>(i)) + "," + num(y_of(s.ys[i])) + " ";
        double peak = 0;
        for (double y : s.ys) peak = std::max(peak, y);
        svg += "<g class=\"mark\"><title>" + escape_html(s.label + ": peak " + format_number(peak) + " " + y_unit) +
               "</title><polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.5\" points=\"" + pts + "\"/>";
        const double ly = kTop + kPlotH + kBottom + 18 * static_cast<double>(k);
        svg += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(ly - 10) + "\" width=\"12\" height=\"12\" fill=\"" + colour + "\"/>";
        svg += text(kLeft + 18, ly, s.label) + "</g>";
    }
    return svg + "</svg>";
}

std::string heatmap(const std::string& name, const std::vector<std::string>& rows,
                    const std::vector<std::string>& columns, const std::vector<std::vector<double>>& cells,
                    const std::string& unit) {
    constexpr double kLeft = 90, kTop = 130, kCellH = 22;
    const double cell_w = std::clamp(640.0 / static_cast<double>(std::max<size_t>(columns.size(), 1)), 14.0, 90.0);
    double top = 1e-12;
    for (const auto& row : cells)
        for (double v : row) top = std::max(top, v);
    const double width = kLeft + cell_w * static_cast<double>(columns.size()) + 20;
    const double height = kTop + kCellH * static_cast<double>(rows.size()) + 30;
    std::string svg = open_svg(name, std::max(width, 320.0), height);
    for (size_t c = 0; c < columns.size(); ++c) {
        const double x = kLeft + cell_w * (static_cast<double>(c) + 0.5);
        svg += text(x, kTop - 6, shorten(columns[c], 24),
                    " text-anchor=\"start\" transform=\"rotate(-45 " + num(x) + " " + num(kTop - 6) + ")\"");
    }
    for (size_t r = 0; r < rows.size(); ++r) {
        const double y = kTop + kCellH * static_cast<double>(r);
        svg += text(kLeft - 6, y + 15, shorten(rows[r], 14), " text-anchor=\"end\"");
        for (size_t c = 0; c < columns.size() && c < cells[r].size(); ++c) {
            const double v = cells[r][c];
            const std::string tip = rows[r] + ", " + columns[c] + ": " + (v < 0 ? "none" : format_number(v) + " " + unit);
            svg += "<g class=\"mark\"><title>" + escape_html(tip) + "</title><rect x=\"" +
                   num(kLeft + cell_w * static_cast<double>(c)) + "\" y=\"" + num(y) + "\" width=\"" + num(cell_w - 1) +
                   "\" height=\"" + num(kCellH - 1) + "\" fill=\"" + (v < 0 ? std::string("#eeeeee") : blue(v / top)) +
                   "\"/></g>";
        }
    }
    svg += text(kLeft, height - 8, "darkest = " + format_number(top) + " " + unit);
    return svg + "</svg>";
}

}  // namespace mimic::report
