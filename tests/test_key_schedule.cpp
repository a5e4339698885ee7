// Spec §3 and §7 against the vectors: X25519, HKDF, frame keys, key log lines, PEM keys.
#include <QFloat16>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto/aead.h"
#include "crypto/keylog.h"
#include "vectors.h"

using namespace anthro;
using namespace anthro::test;

class TestKeySchedule : public QObject {
  Q_OBJECT
 private slots:
  void publicKeysFromPrivate() {
    const auto& k = vectors()["keys"];
    QCOMPARE(to_hex(x25519_public_from_private(key32(k["client_ephemeral_private"]))),
             k["client_ephemeral_public"].get<std::string>());
    QCOMPARE(to_hex(x25519_public_from_private(key32(k["server_static_private"]))),
             k["server_static_public"].get<std::string>());
  }

  void sharedSecretFromBothSides() {
    const auto& k = vectors()["keys"];
    auto from_client = x25519_shared(key32(k["client_ephemeral_private"]), key32(k["server_static_public"]));
    auto from_server = x25519_shared(key32(k["server_static_private"]), key32(k["client_ephemeral_public"]));
    QVERIFY(from_client.ok() && from_server.ok());
    QCOMPARE(to_hex(*from_client), k["x25519_shared"].get<std::string>());
    QCOMPARE(to_hex(*from_server), k["x25519_shared"].get<std::string>());
  }

  void hkdfStepByStep() {
    const auto& k = vectors()["keys"];
    Bytes salt = hkdf_salt(vector_token(), key32(k["client_random"]));
    QCOMPARE(to_hex(salt), k["hkdf_salt"].get<std::string>());
    Key32 prk = hkdf_extract(salt, key32(k["x25519_shared"]));
    QCOMPARE(to_hex(prk), k["hkdf_prk"].get<std::string>());
    QCOMPARE(to_hex(hkdf_expand(prk, "anthro-v1 c2s")), k["key_c2s"].get<std::string>());
    QCOMPARE(to_hex(hkdf_expand(prk, "anthro-v1 s2c")), k["key_s2c"].get<std::string>());
  }

  void frameKeysFromEitherSide() {
    const auto& k = vectors()["keys"];
    Key32 client_random = key32(k["client_random"]);
    auto client = frame_keys(key32(k["client_ephemeral_private"]), key32(k["server_static_public"]),
                             vector_token(), client_random);
    auto server = frame_keys(key32(k["server_static_private"]), key32(k["client_ephemeral_public"]),
                             vector_token(), client_random);
    QVERIFY(client.ok() && server.ok());
    QVERIFY(*client == vector_keys());
    QVERIFY(*server == vector_keys());
  }

  void zeroSharedIsRefused() {
    Key32 zero{};
    auto shared = x25519_shared(key32(vectors()["keys"]["server_static_private"]), zero);
    QVERIFY(!shared.ok());
    QCOMPARE(shared.error().reason, std::string("zero-shared"));
  }

  void keylogLineRoundTrip() {
    const auto& line = vectors()["keys"]["keylog_line"].get<std::string>();
    QCOMPARE(format_anthro_line(vector_token(), vector_keys()), line);
    KeyLog log = parse_keylog(line, "vectors");
    QCOMPARE(log.anthro.size(), std::size_t{1});
    QCOMPARE(log.anthro[0].token, vector_token());
    QVERIFY(log.anthro[0].keys == vector_keys());
  }

  void keylogFileMixesLabels() {
    std::string upper = vectors()["keys"]["keylog_line"].get<std::string>();
    for (auto& c : upper) c = static_cast<char>(std::toupper(c));
    upper.replace(0, 9, "ANTHRO_V1");
    std::string text = "# comment\r\n\nCLIENT_TRAFFIC_SECRET_0 " + std::string(64, 'a') + " " +
                       std::string(96, 'b') + "\nSOME_FUTURE_LABEL x y\n" + upper +
                       "\r\nANTHRO_V1 1234 short\n";
    KeyLog log = parse_keylog(text, "mixed.keylog");
    QCOMPARE(log.anthro.size(), std::size_t{1});
    QVERIFY(log.anthro[0].keys == vector_keys());
    QCOMPARE(log.tls.size(), std::size_t{1});
    QCOMPARE(log.tls[0].label, std::string("CLIENT_TRAFFIC_SECRET_0"));
    QCOMPARE(log.problems.size(), std::size_t{1});
    QVERIFY(log.problems[0].find("mixed.keylog:6:") == 0);
  }

  void keylogFileOfTheVectors() {
    KeyLog log = parse_keylog(read_file(vectors_path("lab-conversation.keylog")), "lab.keylog");
    QCOMPARE(log.anthro.size(), std::size_t{1});
    QVERIFY(log.anthro[0].keys == vector_keys());
  }

  void appendedKeylogIsPrivate() {
    QTemporaryDir dir;
    std::string path = dir.filePath("keys.log").toStdString();
    QVERIFY(append_keylog_line(path, format_anthro_line(1, vector_keys())).ok());
    QVERIFY(append_keylog_line(path, format_anthro_line(2, vector_keys())).ok());
    struct stat st {};
    QCOMPARE(::stat(path.c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0600u);
    KeyLog log = parse_keylog(read_file(path), path);
    QCOMPARE(log.anthro.size(), std::size_t{2});
    QCOMPARE(log.anthro[1].token, std::uint64_t{2});
    auto bad = append_keylog_line(dir.filePath("missing/dir/keys.log").toStdString(), "x");
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().detail.find("missing/dir/keys.log") != std::string::npos);
  }

  // The process's own key lines are kept only while a capture watches, each watch from its
  // start, at most kMaxLines (the oldest go, counted as lost), and dropped when none watches.
  void ownKeyLogIsKeptWhileWatchedAndBounded() {
    OwnKeyLog::record("CLIENT_RANDOM before any watch");
    {
      OwnKeyLog::Watch first;
      QCOMPARE(first.lines().size(), std::size_t{0});
      OwnKeyLog::record("line 0");
      std::vector<std::string> second_sees;
      {
        OwnKeyLog::Watch second;
        OwnKeyLog::record("line 1");
        second_sees = second.lines();
      }
      QCOMPARE(second_sees, std::vector<std::string>{"line 1"});
      QCOMPARE(first.lines(), (std::vector<std::string>{"line 0", "line 1"}));
      for (std::size_t i = 2; i < OwnKeyLog::kMaxLines + 7; ++i) OwnKeyLog::record("line " + std::to_string(i));
      const auto kept = first.lines();
      QCOMPARE(kept.size(), OwnKeyLog::kMaxLines);
      QCOMPARE(kept.front(), std::string("line 7"));
      QCOMPARE(first.lost(), std::uint64_t{7});
    }
    OwnKeyLog::Watch later;
    OwnKeyLog::record("line after");
    QCOMPARE(later.lines(), std::vector<std::string>{"line after"});
    QCOMPARE(later.lost(), std::uint64_t{0});
  }

  void pemKeysLoad() {
    const auto& k = vectors()["keys"];
    auto from_json = load_x25519_private_pem(k["server_static_private_pem"].get<std::string>(), "json");
    auto from_file = load_x25519_private_pem(read_file(vectors_path("server-static.pem")), "server-static.pem");
    QVERIFY(from_json.ok() && from_file.ok());
    QCOMPARE(to_hex(*from_json), k["server_static_private"].get<std::string>());
    QCOMPARE(to_hex(*from_file), k["server_static_private"].get<std::string>());
    // What we write, openssl and we read back.
    std::string pem = x25519_private_to_pem(*from_file);
    QCOMPARE(pem, read_file(vectors_path("server-static.pem")));
  }

  void pemRejectsOtherKeys() {
    auto garbage = load_x25519_private_pem("not a pem", "garbage.pem");
    QVERIFY(!garbage.ok());
    QVERIFY(garbage.error().detail.find("garbage.pem") == 0);
    QProcess openssl;
    openssl.start("openssl", {"genpkey", "-algorithm", "ED25519"});
    QVERIFY(openssl.waitForFinished(10000));
    auto ed = load_x25519_private_pem(openssl.readAllStandardOutput().toStdString(), "ed.pem");
    QVERIFY(!ed.ok());
    QVERIFY2(ed.error().detail.find("expected X25519") != std::string::npos, ed.error().detail.c_str());
  }

  // OpenSSL's default passphrase callback prompts on the terminal and waits for a reply.
  void encryptedPemRefusedWithoutPrompt() {
    QTemporaryDir dir;
    QProcess openssl;
    openssl.start("openssl", {"genpkey", "-algorithm", "X25519", "-aes-256-cbc", "-pass", "pass:secret"});
    QVERIFY(openssl.waitForFinished(10000));
    std::string pem = openssl.readAllStandardOutput().toStdString();
    QVERIFY(pem.find("ENCRYPTED") != std::string::npos);
    // What would be written to the terminal goes to stderr: capture it.
    std::string err_path = dir.filePath("stderr").toStdString();
    int saved = dup(2);
    int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(err_fd, 2);
    auto key = load_x25519_private_pem(pem, "enc.pem");
    dup2(saved, 2);
    ::close(err_fd);
    ::close(saved);
    QVERIFY(!key.ok());
    QVERIFY2(key.error().detail.find("enc.pem: the private key is encrypted") == 0, key.error().detail.c_str());
    QCOMPARE(read_file(err_path), std::string());
  }

  void opensslGeneratedKeyLoads() {
    QProcess openssl;
    openssl.start("openssl", {"genpkey", "-algorithm", "X25519"});
    QVERIFY(openssl.waitForFinished(10000));
    std::string pem = openssl.readAllStandardOutput().toStdString();
    auto key = load_x25519_private_pem(pem, "x.pem");
    QVERIFY(key.ok());
    QCOMPARE(x25519_private_to_pem(*key), pem);
  }

  void nonceSequenceNeverRepeats() {
    NonceSequence seq;
    auto first = seq.next();
    auto second = seq.next();
    QVERIFY(first != second);
    QVERIFY(std::equal(first.begin(), first.begin() + 4, second.begin()));
    QCOMPARE(load_u64(second.data() + 4), load_u64(first.data() + 4) + 1);
  }
};

QTEST_GUILESS_MAIN(TestKeySchedule)
#include "test_key_schedule.moc"
