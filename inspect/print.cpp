#include "inspect/print.hpp"

#include "inspect/table.hpp"

namespace det::inspect_cli {

using nlohmann::json;

std::string view_text(inspection::view_kind k, const json& view) {
  std::string out;
  bool first = true;
  for (const auto& [name, columns] : inspection::view_tables(k)) {
    auto rows = view.value(name, json::array());
    if (!first) {
      if (rows.empty())
        continue;
      out += "\n" + name + ":\n";
    }
    out += inspection::format_rows(rows, columns);
    first = false;
  }
  return out;
}

std::string events_text(const json& events, bool header, size_t payload_width) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : events) {
    auto payload = e.value("payload", json::object()).dump();
    if (payload_width > 0)
      payload = inspection::truncate(payload, payload_width);
    rows.push_back({inspection::cell_text(e.value("position", json{})),
                    inspection::cell_text(e.value("recorded_at", json{})),
                    inspection::cell_text(e.value("stream", json{})),
                    inspection::cell_text(e.value("type", json{})), payload});
  }
  auto text = inspection::format_table(
      {"POSITION", "RECORDED", "STREAM", "TYPE", "PAYLOAD"}, rows,
      {true, false, false, false, false});
  if (header)
    return text;
  // Without the header line (later pages of --follow).
  return text.substr(text.find('\n') + 1);
}

std::string summary_text(const json& summary) {
  std::string out = "position:   " + inspection::cell_text(summary["position"])
                    + "\ncluster id: "
                    + inspection::cell_text(summary.value("cluster_id", json{}))
                    + "\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const char* kind :
       {"pools", "agents", "instances", "experiments", "trials"}) {
    auto counts = summary.value(kind, json::object());
    std::string by;
    for (auto it = counts.begin(); it != counts.end(); ++it)
      if (it.key() != "total")
        by += (by.empty() ? "" : " ") + it.key() + "="
              + inspection::cell_text(it.value());
    rows.push_back(
        {kind, inspection::cell_text(counts.value("total", json(0))), by});
  }
  return out
         + inspection::format_table({"KIND", "TOTAL", "BY STATUS"}, rows,
                                    {false, true, false});
}

} // namespace det::inspect_cli
