package dev.inspection.conformance;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The webhook listener of {@code listen}: a small HTTP/1.1 server on 127.0.0.1 (a free
 * port; plain sockets, as the test classes run inside the client's module, which reads no
 * HTTP server module) that answers every POST with 200 and records it: its headers (names
 * lowercase) and its body (by its length, or chunked).
 */
final class Listener implements AutoCloseable {
    /** One POST received. */
    record Received(Map<String, List<String>> headers, byte[] body) {
    }

    private final ServerSocket server;
    private final List<Received> received = new ArrayList<>();
    final String url;

    Listener() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        url = "http://127.0.0.1:" + server.getLocalPort() + "/hook";
        Thread accept = new Thread(this::serve, "webhook-listener");
        accept.setDaemon(true);
        accept.start();
    }

    private void serve() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread t = new Thread(() -> connection(socket), "webhook-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Requests on one kept-alive connection, until it ends. */
    private void connection(Socket socket) {
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
            socket.setSoTimeout(30_000);
            while (true) {
                String start = line(in);
                if (start == null || start.isEmpty()) {
                    return;
                }
                Map<String, List<String>> headers = new LinkedHashMap<>();
                for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
                    int colon = h.indexOf(':');
                    String name = h.substring(0, Math.max(colon, 0)).trim().toLowerCase(Locale.ROOT);
                    headers.computeIfAbsent(name, k -> new ArrayList<>()).add(h.substring(colon + 1).trim());
                }
                byte[] body = body(in, headers);
                boolean post = start.startsWith("POST ");
                if (post) {
                    synchronized (received) {
                        received.add(new Received(headers, body));
                        received.notifyAll();
                    }
                }
                out.write((post ? "HTTP/1.1 200 OK" : "HTTP/1.1 405 Method Not Allowed").getBytes(StandardCharsets.US_ASCII));
                out.write("\r\ncontent-length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        } catch (IOException e) {
            // the connection ended
        }
    }

    private static byte[] body(InputStream in, Map<String, List<String>> headers) throws IOException {
        String encoding = String.join(",", headers.getOrDefault("transfer-encoding", List.of()));
        if (encoding.toLowerCase(Locale.ROOT).contains("chunked")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                String size = line(in);
                int n = Integer.parseInt(size == null ? "0" : size.split(";")[0].trim(), 16);
                if (n == 0) {
                    for (String t = line(in); t != null && !t.isEmpty(); t = line(in)) {
                        // the trailer
                    }
                    return out.toByteArray();
                }
                out.write(in.readNBytes(n));
                line(in);
            }
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", List.of("0")).get(0));
        return in.readNBytes(length);
    }

    /** A line without its CRLF, or null at the end of the stream. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                byte[] bytes = out.toByteArray();
                int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
            }
            out.write(b);
        }
        return out.size() == 0 ? null : out.toString(StandardCharsets.ISO_8859_1);
    }

    /** What came once {@code count} deliveries did, or when {@code timeoutMs} passed. */
    List<Received> waitFor(int count, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        synchronized (received) {
            while (received.size() < count) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    break;
                }
                received.wait(left);
            }
            return List.copyOf(received);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
