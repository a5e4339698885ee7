// The client faults of checklists.md, as `anthro-wb bench` and `anthro-wb diagnose` take them
// (--close-without-cancel, --retry-naive, --cancel-rate, --read-delay-ms with --ring-kib,
// --hold-connections): one box for the load panel and the Diagnosis page, so both map the
// controls onto core the same way. Its title is a check box: unticked, the box folds away
// and no fault applies.
#pragma once

#include <QGroupBox>
#include <cstdint>
#include <optional>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace anthro {
struct BenchConfig;
struct LiveWorkloadConfig;
}

namespace anthro::widgets {

struct ClientFaults {
  bool close_without_cancel = false;
  bool retry_naive = false;
  double cancel_rate = 0;  // fraction, 0..1
  double read_delay_ms = 0;
  std::optional<std::uint16_t> ring_kib = std::nullopt;  // 64..65535; none: the client's default
  double hold_connections_s = 0;
};

class ClientFaultsBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit ClientFaultsBox(QWidget* parent = nullptr);

  // What the controls say; no fault when the box is unticked.
  ClientFaults faults() const;
  // Sets the controls and ticks the box when any fault is on.
  void setFaults(const ClientFaults& f);

  // As `anthro-wb bench`: closing without CANCEL needs a cancel point, 5 tokens.
  void applyTo(BenchConfig& b) const;
  // As `anthro-wb diagnose`: the workload picks its cancel points itself.
  void applyTo(LiveWorkloadConfig& live) const;

 private:
  QCheckBox* close_without_cancel_;
  QCheckBox* retry_naive_;
  QDoubleSpinBox* cancel_rate_;
  QDoubleSpinBox* read_delay_;
  QSpinBox* ring_;
  QDoubleSpinBox* hold_;
  QWidget* body_;
};

}  // namespace anthro::widgets
