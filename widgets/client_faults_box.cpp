#include "client_faults_box.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include "diagnosis/live_workload.h"
#include "retranslator.h"
#include "session/bench.h"

namespace anthro::widgets {
namespace {

// The ring's spin box starts one below the protocol's 64 KiB minimum: that value reads
// "default" and leaves the client's own size, so the box needs no second control.
constexpr int kRingDefault = 63;

// Applies what bench and the live workload share.
template <typename Config>
void apply_common(const ClientFaults& f, Config& c) {
  c.cancel_rate = f.cancel_rate;
  c.retry_naive = f.retry_naive;
  c.hold_connections_s = f.hold_connections_s;
  c.session.close_without_cancel = f.close_without_cancel;
  c.session.read_delay_ms = f.read_delay_ms;
  c.session.ring_kib = f.ring_kib;
}

}  // namespace

ClientFaultsBox::ClientFaultsBox(QWidget* parent)
    : QGroupBox(parent),
      close_without_cancel_(new QCheckBox(this)),
      retry_naive_(new QCheckBox(this)),
      cancel_rate_(new QDoubleSpinBox(this)),
      read_delay_(new QDoubleSpinBox(this)),
      ring_(new QSpinBox(this)),
      hold_(new QDoubleSpinBox(this)),
      body_(new QWidget(this)) {
  setCheckable(true);
  setChecked(false);
  cancel_rate_->setRange(0, 100);  // shown in percent; the checklist's threshold is 0.5 %
  cancel_rate_->setDecimals(1);
  cancel_rate_->setSingleStep(0.5);
  read_delay_->setRange(0, 60000);
  read_delay_->setDecimals(0);
  ring_->setRange(kRingDefault, 65535);
  hold_->setRange(0, 86400);
  hold_->setDecimals(0);
  // Units are SI, the same in every language.
  cancel_rate_->setSuffix(" %");
  read_delay_->setSuffix(" ms");
  ring_->setSuffix(" KiB");
  hold_->setSuffix(" s");

  auto* cancel_rate_label = new QLabel(body_);
  auto* read_delay_label = new QLabel(body_);
  auto* ring_label = new QLabel(body_);
  auto* hold_label = new QLabel(body_);
  auto* grid = new QGridLayout(body_);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(close_without_cancel_, 0, 0, 1, 2);
  grid->addWidget(retry_naive_, 0, 2, 1, 2);
  grid->addWidget(hold_label, 0, 4);
  grid->addWidget(hold_, 0, 5);
  grid->addWidget(cancel_rate_label, 1, 0);
  grid->addWidget(cancel_rate_, 1, 1);
  grid->addWidget(read_delay_label, 1, 2);
  grid->addWidget(read_delay_, 1, 3);
  grid->addWidget(ring_label, 1, 4);
  grid->addWidget(ring_, 1, 5);
  grid->setColumnStretch(6, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(body_);
  body_->setVisible(false);
  connect(this, &QGroupBox::toggled, body_, &QWidget::setVisible);

  (new Retranslator(this))->add([=, this] {
    setTitle(tr("Client faults"));
    setToolTip(tr("Misbehave as a faulty client would, to see the checklist catch it"));
    close_without_cancel_->setText(tr("Close without CANCEL"));
    close_without_cancel_->setToolTip(
        tr("Stop reading after 5 tokens and close the connection without sending CANCEL "
           "(--close-without-cancel). Triggers cancel-not-sent."));
    retry_naive_->setText(tr("Retry 429 at once"));
    retry_naive_->setToolTip(
        tr("Retry a 429 at once instead of after retry_after_ms (--retry-naive). "
           "Triggers retry-after-ignored against an endpoint with the overload fault."));
    cancel_rate_label->setText(tr("Cancel rate"));
    cancel_rate_->setToolTip(
        tr("Requests that send CANCEL after 5 tokens (--cancel-rate). Above 0.5 % triggers cancel-rate."));
    read_delay_label->setText(tr("Read delay"));
    read_delay_->setToolTip(
        tr("A slow reader: pause this long between reads (--read-delay-ms). With a 64 KiB ring and "
           "an endpoint with the burst fault, triggers ring-buffer-stall."));
    ring_label->setText(tr("Receive ring"));
    ring_->setSpecialValueText(tr("default"));
    ring_->setToolTip(tr("The client's receive ring, 64 to 65535 KiB (--ring-kib). A small ring with a "
                         "read delay triggers ring-buffer-stall."));
    hold_label->setText(tr("Hold connections"));
    hold_->setToolTip(tr("Keep the connections open this long after the last request (--hold-connections). "
                         "Over 300 s triggers connection-duration."));
  });
}

ClientFaults ClientFaultsBox::faults() const {
  ClientFaults f;
  if (!isChecked()) return f;
  f.close_without_cancel = close_without_cancel_->isChecked();
  f.retry_naive = retry_naive_->isChecked();
  f.cancel_rate = cancel_rate_->value() / 100;
  f.read_delay_ms = read_delay_->value();
  if (ring_->value() != kRingDefault) f.ring_kib = static_cast<std::uint16_t>(ring_->value());
  f.hold_connections_s = hold_->value();
  return f;
}

void ClientFaultsBox::setFaults(const ClientFaults& f) {
  close_without_cancel_->setChecked(f.close_without_cancel);
  retry_naive_->setChecked(f.retry_naive);
  cancel_rate_->setValue(f.cancel_rate * 100);
  read_delay_->setValue(f.read_delay_ms);
  ring_->setValue(f.ring_kib ? *f.ring_kib : kRingDefault);
  hold_->setValue(f.hold_connections_s);
  setChecked(f.close_without_cancel || f.retry_naive || f.cancel_rate > 0 || f.read_delay_ms > 0 || f.ring_kib ||
             f.hold_connections_s > 0);
}

void ClientFaultsBox::applyTo(BenchConfig& b) const {
  const ClientFaults f = faults();
  apply_common(f, b);
  if (f.close_without_cancel && !b.session.cancel_after_tokens) b.session.cancel_after_tokens = 5;
}

void ClientFaultsBox::applyTo(LiveWorkloadConfig& live) const { apply_common(faults(), live); }

}  // namespace anthro::widgets
