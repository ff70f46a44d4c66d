// Charts drawn as inline SVG, so a report is one file that opens offline and
// prints. Each chart is an <svg class="chart" data-chart=NAME> with a <title>
// on every mark (the browser's tooltip), sized from its data.
#pragma once

#include <string>
#include <vector>

namespace mimic::report {

struct Bar {
    std::string label;
    double value = 0;
    std::string tooltip;  // "" : label and value
};

// Horizontal bars, largest scale first as given; `unit` is printed after values.
std::string bar_chart(const std::string& name, const std::vector<Bar>& bars, const std::string& unit);

// Vertical bars over ordered bins (a histogram, iterations): labels under each bar.
std::string column_chart(const std::string& name, const std::vector<Bar>& bars, const std::string& unit,
                         double reference = -1, const std::string& reference_label = "");

struct Series {
    std::string label;
    std::vector<double> ys;  // at x = 0, 1, 2...
};

// Lines over a shared x axis (op position); `y_unit` names the axis.
std::string line_chart(const std::string& name, const std::vector<Series>& series, const std::string& x_label,
                       const std::string& y_unit);

// A rows x columns grid coloured by value (white to dark blue); a cell < 0 has no value.
std::string heatmap(const std::string& name, const std::vector<std::string>& rows,
                    const std::vector<std::string>& columns, const std::vector<std::vector<double>>& cells,
                    const std::string& unit);

// A number with at most 3 significant decimals and a thousands-free form ("12.3", "0.0042").
std::string format_number(double v);

}  // namespace mimic::report
