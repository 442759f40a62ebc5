package example;

import java.util.concurrent.atomic.AtomicInteger;

import dev.inspection.client.v3.ApiKey;
import dev.inspection.client.v3.AsyncClient;
import dev.inspection.client.v3.Client;
import dev.inspection.client.v3.Inspection;
import dev.inspection.client.v3.ListInspectionsQuery;
import dev.inspection.client.v3.NewUnit;
import dev.inspection.client.v3.Unit;

public final class Quickstart {
    public static void main(String[] args) {
        String url = System.getenv().getOrDefault("INSPECTION_URL", "http://127.0.0.1:8080/v3");
        ApiKey key = ApiKey.of("demo-key", "demo-secret");
        ListInspectionsQuery pages = ListInspectionsQuery.builder().perPage(100).build();
        try (Client client = new Client(url, key)) {
            NewUnit draft = NewUnit.builder().referenceNumber("A-" + ProcessHandle.current().pid()).make("Cat").build();
            Unit unit = client.createUnit(draft);
            System.out.println("created unit " + unit.id().value());
            for (Inspection inspection : client.listInspections(pages)) {
                int results = inspection.results().map(r -> r.size()).orElse(0);
                System.out.println(inspection.id().value() + ", results: " + results);
            }
        }
        try (AsyncClient client = new AsyncClient(url, key)) {
            AtomicInteger walked = new AtomicInteger();
            client.listInspections(pages).forEach(inspection -> walked.incrementAndGet()).join();
            System.out.println("async: " + walked + " inspections");
        }
    }
}
