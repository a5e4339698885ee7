// tcpdump on lo: the outside capture that the live capture suites hold the workbench's decoding
// and timing to (the workbench's own capture of a port: lo_capture.h). Started once it
// listens, stopped once the connection's last packets are in the file.
#pragma once

#include <QByteArray>
#include <QDeadlineTimer>
#include <QFloat16>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QTest>

#include <csignal>
#include <string>

#include <unistd.h>

#include "capture/capture_file.h"
#include "capture/packet.h"

namespace anthro::test {

// tcpdump on loopback for `port`, started and listening; an empty result carries why not.
inline QString start_tcpdump(QProcess& tcpdump, const std::string& pcap, const QString& port) {
  if (QStandardPaths::findExecutable("tcpdump").isEmpty()) return "tcpdump is not installed";
  tcpdump.start("tcpdump", {"-i", "lo", "-s", "0", "-U", "--immediate-mode", "-w", QString::fromStdString(pcap),
                            "tcp port " + port});
  if (!tcpdump.waitForStarted(5000)) return "tcpdump did not start";
  tcpdump.setReadChannel(QProcess::StandardError);  // "listening on" comes on stderr
  QByteArray err;
  while (!err.contains("listening on") && tcpdump.waitForReadyRead(5000)) err += tcpdump.readAllStandardError();
  return err.contains("listening on") ? QString() : "tcpdump could not capture here: " + QString::fromUtf8(err);
}

// Both ends' FIN (or an RST) are in the file: the connection's last packets were written.
inline bool closed_in_file(const std::string& pcap) {
  auto reader = CaptureReader::open(pcap);
  int closes = 0;
  if (reader.ok())
    while (auto p = (*reader)->next())
      if (auto seg = parse_tcp(*p); seg.ok() && *seg && ((*seg)->flags & 0x05)) ++closes;
  return closes >= 2;
}

// Stops tcpdump once the connection's end is in `pcap` (on a busy machine tcpdump may write it
// late: no fixed sleep), or after 10 s.
inline bool stop_tcpdump(QProcess& tcpdump, const std::string& pcap) {
  QDeadlineTimer deadline(10000);
  while (!closed_in_file(pcap) && !deadline.hasExpired()) QTest::qWait(50);
  if (deadline.hasExpired()) qWarning("%s: no FIN from both ends after 10 s", pcap.c_str());
  ::kill(static_cast<pid_t>(tcpdump.processId()), SIGINT);
  return tcpdump.waitForFinished(5000);
}

}  // namespace anthro::test
