package dev.inspection.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.inspection.client.v3.ApiKey;
import dev.inspection.client.v3.Client;

/**
 * The Java client moves large files in bounded memory: a 200 MiB pre-signed upload from an
 * {@code InputStream} and a 200 MiB download into an {@code OutputStream}, each in a JVM of
 * its own whose heap is 32 MiB ({@code -Xmx32m}; it exits at once on running out). A client
 * that held the file would need 200 MiB more than that heap has.
 */
class BoundedMemoryTest {
    private static final long SIZE = 200L << 20;

    /** Zero bytes, {@code left} of them, held nowhere. */
    private static final class Zeros extends InputStream {
        private long left;

        Zeros(long size) {
            left = size;
        }

        @Override
        public int read() {
            if (left == 0) {
                return -1;
            }
            left--;
            return 0;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (left == 0) {
                return -1;
            }
            int n = (int) Math.min(len, left);
            java.util.Arrays.fill(b, off, off + n, (byte) 0);
            left -= n;
            return n;
        }
    }

    /**
     * What the small JVM runs: {@code upload URL} or {@code download URL}; it exits 0 once
     * the bytes moved, 1 when the client failed.
     *
     * @param args the transfer and its pre-signed URL
     */
    public static void main(String[] args) {
        String base = args[1].substring(0, args[1].indexOf('/', "http://".length()));
        try (Client client = new Client(base + "/v3", ApiKey.of("demo-key", "demo-secret"))) {
            if (args[0].equals("upload")) {
                client.putPresigned(args[1], () -> new Zeros(SIZE), SIZE, "application/octet-stream");
            } else if (client.fetchPresignedTo(args[1], OutputStream.nullOutputStream()) != SIZE) {
                System.exit(1);
            }
        } catch (RuntimeException e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    /** Runs {@link #main} in a JVM with a 32 MiB heap and gives its exit code. */
    private static int inSmallHeap(String transfer, String url) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Surefire runs the tests as a patch of the client's module: the small JVM gets the
        // module path's entries on its class path too, where the class is read plainly.
        String path = String.join(java.io.File.pathSeparator,
            System.getProperty("jdk.module.path", ""), System.getProperty("java.class.path", ""));
        command.addAll(List.of("-Xmx32m", "-XX:+ExitOnOutOfMemoryError", "-cp", path));
        command.addAll(List.of(BoundedMemoryTest.class.getName(), transfer, url));
        Process child = new ProcessBuilder(command).inheritIO().start();
        if (!child.waitFor(2, TimeUnit.MINUTES)) {
            child.destroyForcibly();
            throw new AssertionError("the " + transfer + " did not end within two minutes");
        }
        return child.exitValue();
    }

    /** One HTTP/1.1 exchange on a loopback socket: the request's head, then {@code answer}. */
    private interface Exchange {
        void answer(String head, InputStream in, OutputStream out) throws IOException;
    }

    /** Serves one exchange on a free loopback port, in a thread; gives the port. */
    private static ServerSocket serveOnce(Exchange exchange) throws IOException {
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread thread = new Thread(() -> {
            try (Socket socket = server.accept()) {
                InputStream in = socket.getInputStream();
                ByteArrayOutputStream head = new ByteArrayOutputStream();
                while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    head.write(b);
                }
                exchange.answer(head.toString(StandardCharsets.ISO_8859_1), in, socket.getOutputStream());
            } catch (IOException e) {
                // the client's side fails the test
            }
        });
        thread.setDaemon(true);
        thread.start();
        return server;
    }

    /** The value of the header {@code name} in a request's head, or -1. */
    private static long header(String head, String name) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        return -1;
    }

    @Test
    void a200MiBUploadRunsInA32MiBHeapAndGoesWithItsLength() throws Exception {
        AtomicLong received = new AtomicLong();
        AtomicLong announced = new AtomicLong();
        try (ServerSocket server = serveOnce((head, in, out) -> {
            announced.set(header(head, "content-length"));
            received.set(in.readNBytes((int) Math.min(announced.get(), Integer.MAX_VALUE)).length);
            out.write("HTTP/1.1 200 OK\r\nETag: \"e1\"\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        })) {
            String url = "http://127.0.0.1:" + server.getLocalPort() + "/bucket/log?X-Signature=s3cret";
            assertEquals(0, inSmallHeap("upload", url));
            assertEquals(SIZE, received.get());
            assertEquals(SIZE, announced.get());
        }
    }

    @Test
    void a200MiBDownloadRunsInA32MiBHeap() throws Exception {
        try (ServerSocket server = serveOnce((head, in, out) -> {
            out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + SIZE + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            new Zeros(SIZE).transferTo(out);
            out.flush();
        })) {
            String url = "http://127.0.0.1:" + server.getLocalPort() + "/share/doc.pdf?X-Signature=s3cret";
            assertEquals(0, inSmallHeap("download", url));
        }
    }
}
