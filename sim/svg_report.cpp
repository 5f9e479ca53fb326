#include "sim/svg_report.hpp"

#include "sim/figures.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace det::sim {

namespace {

constexpr int col_w = 300;
constexpr int row_h = 130;
constexpr int margin = 40;

std::string svg_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '<')
      out += "&lt;";
    else if (ch == '>')
      out += "&gt;";
    else if (ch == '&')
      out += "&amp;";
    else
      out += ch;
  }
  return out;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

} // namespace

std::string svg_report(const std::string& title,
                       const std::vector<run_result>& runs,
                       const lower_bounds& bounds, int gpus_per_instance) {
  const char* names[] = {"instances", "busy GPUs", "jobs waiting"};
  const char* colors[] = {"#1f6feb", "#2da44e", "#cf222e"};
  double max_t = 1;
  double top[3] = {1, 1, 1};
  for (const auto& r : runs)
    for (const auto& p : r.series) {
      max_t = std::max(max_t, static_cast<double>(p.t_s));
      top[0] = std::max(top[0], static_cast<double>(p.instances));
      top[1] = std::max(top[1], static_cast<double>(p.busy_gpus));
      top[2] = std::max(top[2], static_cast<double>(p.queued));
    }
  int width =
      margin * 2 + col_w * static_cast<int>(std::max<size_t>(1, runs.size()));
  int height = margin * 2 + 40 + row_h * 3;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
    << "\" height=\"" << height << "\" font-family=\"sans-serif\" "
    << "font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
       "fill=\"white\"/>\n";
  o << "<text x=\"" << margin << "\" y=\"20\" font-size=\"14\">"
    << svg_escape(title) << "  (work bound " << fixed(bounds.work_h, 0)
    << " instance-h, clairvoyant " << fixed(bounds.clairvoyant_h, 0)
    << ")</text>\n";
  // Mean fleet the work bound implies over the run, on the instances row.
  double mean_fleet = bounds.work_h * 3600.0 / max_t;
  for (size_t c = 0; c < runs.size(); ++c) {
    const auto& r = runs[c];
    int x0 = margin + static_cast<int>(c) * col_w;
    auto overhead =
        bounds.work_h > 0 ? (r.instance_hours / bounds.work_h - 1) * 100 : 0;
    std::vector<int64_t> w;
    for (auto v : r.waits)
      if (v >= 0)
        w.push_back(v);
    o << "<text x=\"" << x0 << "\" y=\"" << margin + 8
      << "\" font-weight=\"bold\">" << svg_escape(r.policy) << "</text>\n"
      << "<text x=\"" << x0 << "\" y=\"" << margin + 22 << "\">"
      << fixed(r.instance_hours, 0) << " inst-h, +" << fixed(overhead, 1)
      << " %, p95 wait " << percentile(w, 95) << " s</text>\n";
    for (int row = 0; row < 3; ++row) {
      int y0 = margin + 40 + row * row_h;
      int h = row_h - 25;
      int pw = col_w - 20;
      o << "<rect x=\"" << x0 << "\" y=\"" << y0 << "\" width=\"" << pw
        << "\" height=\"" << h << "\" fill=\"none\" stroke=\"#ccc\"/>\n"
        << "<text x=\"" << x0 + 3 << "\" y=\"" << y0 + 12 << "\">" << names[row]
        << " (max " << fixed(top[row], 0) << ")</text>\n";
      o << "<polyline fill=\"none\" stroke=\"" << colors[row]
        << "\" stroke-width=\"1\" points=\"";
      for (const auto& p : r.series) {
        double v = row == 0 ? p.instances : row == 1 ? p.busy_gpus : p.queued;
        o << fixed(x0 + pw * static_cast<double>(p.t_s) / max_t, 1) << ','
          << fixed(y0 + h - h * v / top[row], 1) << ' ';
      }
      o << "\"/>\n";
      if (row == 0 && gpus_per_instance > 0) {
        double y = y0 + h - h * mean_fleet / top[0];
        o << "<line x1=\"" << x0 << "\" x2=\"" << x0 + pw << "\" y1=\""
          << fixed(y, 1) << "\" y2=\"" << fixed(y, 1)
          << "\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n";
      }
    }
  }
  o << "</svg>\n";
  return o.str();
}

} // namespace det::sim
