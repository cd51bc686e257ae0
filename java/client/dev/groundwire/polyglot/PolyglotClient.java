package dev.groundwire.polyglot;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import com.google.rpc.BadRequest;
import dev.groundwire.aiplatform.v1.CorroborateContentRequest;
import dev.groundwire.aiplatform.v1.CorroborateContentResponse;
import dev.groundwire.aiplatform.v1.VertexRagServiceGrpc;
import dev.groundwire.discoveryengine.v1.CheckGroundingRequest;
import dev.groundwire.discoveryengine.v1.CheckGroundingResponse;
import dev.groundwire.discoveryengine.v1.GenerateGroundedContentRequest;
import dev.groundwire.discoveryengine.v1.GenerateGroundedContentResponse;
import dev.groundwire.discoveryengine.v1.GroundedGenerationServiceGrpc;
import dev.groundwire.offsets.GroundingOffsets;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Calls the groundwire emulator with Java code generated from groundwire's protos and exits
 * non-zero unless every answer is what the contract says (make test-polyglot).
 *
 * <p>Reads GROUNDWIRE_GRPC (host:port, plaintext) and GROUNDWIRE_CASE (the shared requests) and
 * prints one JSON line: the case's score and claims, for the driver to compare with every other
 * language's.
 */
public final class PolyglotClient {
  private static final long CALL_SECONDS = 30;

  private PolyglotClient() {}

  /** Runs every call of the contract, then prints the CheckGrounding line. */
  public static void main(String[] arguments) throws Exception {
    String address = System.getenv("GROUNDWIRE_GRPC");
    String casePath = System.getenv("GROUNDWIRE_CASE");
    check(address != null && casePath != null, "GROUNDWIRE_GRPC and GROUNDWIRE_CASE must be set");
    JsonObject testCase =
        JsonParser.parseString(
                new String(Files.readAllBytes(Paths.get(casePath)), StandardCharsets.UTF_8))
            .getAsJsonObject();
    // The emulator takes no credentials: plaintext, and nothing that looks for any.
    ManagedChannel channel = NettyChannelBuilder.forTarget(address).usePlaintext().build();
    try {
      JsonObject line = checkGrounding(channel, testCase.getAsJsonObject("check"));
      String answer = generateGroundedContent(channel, testCase.getAsJsonObject("generate"));
      streamGenerateGroundedContent(channel, testCase.getAsJsonObject("generate"), answer);
      corroborateContent(channel, testCase.getAsJsonObject("corroborate"));
      invalidArgumentHasBadRequest(channel, testCase.getAsJsonObject("invalid"));
      JsonObject output = new JsonObject();
      output.addProperty("language", "java");
      output.add("check", line);
      System.out.println(output);
    } finally {
      channel.shutdownNow().awaitTermination(CALL_SECONDS, TimeUnit.SECONDS);
    }
  }

  private static GroundedGenerationServiceGrpc.GroundedGenerationServiceBlockingStub grounding(
      ManagedChannel channel) {
    return GroundedGenerationServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(CALL_SECONDS, TimeUnit.SECONDS);
  }

  /** One of the case's requests, in Google's JSON, read into {@code builder}. */
  private static <B extends Message.Builder> B request(JsonObject section, B builder)
      throws InvalidProtocolBufferException {
    JsonFormat.parser().merge(section.get("request").toString(), builder);
    return builder;
  }

  /**
   * Sends the case's CheckGrounding request and asserts its claims: byte offsets, citations, and
   * the claim text found at the String indices the offsets helper gives.
   */
  private static JsonObject checkGrounding(ManagedChannel channel, JsonObject section)
      throws InvalidProtocolBufferException {
    CheckGroundingRequest sent = request(section, CheckGroundingRequest.newBuilder()).build();
    CheckGroundingResponse response = grounding(channel).checkGrounding(sent);
    check(response.hasSupportScore(), "CheckGrounding: no support score");
    JsonArray expected = section.getAsJsonArray("expected");
    check(
        response.getClaimsCount() == expected.size(),
        "CheckGrounding: " + response.getClaimsCount() + " claims, expected " + expected.size());
    String answer = sent.getAnswerCandidate();
    List<GroundingOffsets.Claim> claims = new ArrayList<>();
    JsonArray lineClaims = new JsonArray();
    for (int i = 0; i < response.getClaimsCount(); i++) {
      CheckGroundingResponse.Claim claim = response.getClaims(i);
      JsonObject want = expected.get(i).getAsJsonObject();
      check(claim.hasStartPos() && claim.hasEndPos(), "claim " + i + ": no positions");
      JsonArray bytes = pair(claim.getStartPos(), claim.getEndPos());
      check(
          bytes.equals(want.get("bytes")),
          "claim " + i + ": bytes " + bytes + ", expected " + want.get("bytes"));
      JsonArray citations = new JsonArray();
      claim.getCitationIndicesList().forEach(citations::add);
      check(
          citations.equals(want.get("citationIndices")),
          "claim " + i + ": citations " + citations + ", expected " + want.get("citationIndices"));
      check(
          claim.getClaimText().equals(want.get("text").getAsString()),
          "claim " + i + ": " + claim.getClaimText() + ", expected " + want.get("text"));
      claims.add(
          new GroundingOffsets.Claim(claim.getStartPos(), claim.getEndPos(), claim.getClaimText()));
      JsonObject lineClaim = new JsonObject();
      lineClaim.addProperty("start", claim.getStartPos());
      lineClaim.addProperty("end", claim.getEndPos());
      lineClaim.add("citationIndices", citations);
      lineClaims.add(lineClaim);
    }
    List<GroundingOffsets.Span> spans = GroundingOffsets.resolve(answer, claims);
    for (int i = 0; i < spans.size(); i++) {
      GroundingOffsets.Span span = spans.get(i);
      JsonObject want = expected.get(i).getAsJsonObject();
      check(!span.adjusted && !span.located, "claim " + i + ": its offsets needed adjusting");
      JsonArray utf16 = pair(span.start, span.end);
      check(
          utf16.equals(want.get("utf16")),
          "claim " + i + ": String indices " + utf16 + ", expected " + want.get("utf16"));
      JsonArray codePoints =
          pair(answer.codePointCount(0, span.start), answer.codePointCount(0, span.end));
      check(
          codePoints.equals(want.get("codePoints")),
          "claim " + i + ": code points " + codePoints + ", expected " + want.get("codePoints"));
      check(
          answer.substring(span.start, span.end).equals(want.get("text").getAsString()),
          "claim " + i + ": " + answer.substring(span.start, span.end) + " at its indices");
    }
    JsonObject line = new JsonObject();
    // Float's shortest form, as protojson and the other languages write the score.
    line.addProperty("supportScore", response.getSupportScore());
    line.add("claims", lineClaims);
    return line;
  }

  /** Asserts a grounded answer citing the inline fact; returns the answer. */
  private static String generateGroundedContent(ManagedChannel channel, JsonObject section)
      throws InvalidProtocolBufferException {
    GenerateGroundedContentRequest sent =
        request(section, GenerateGroundedContentRequest.newBuilder()).build();
    GenerateGroundedContentResponse response = grounding(channel).generateGroundedContent(sent);
    check(
        response.getCandidatesCount() == 1,
        "GenerateGroundedContent: " + response.getCandidatesCount() + " candidates");
    GenerateGroundedContentResponse.Candidate candidate = response.getCandidates(0);
    String answer = text(candidate);
    String contains = section.get("answerContains").getAsString();
    check(
        answer.contains(contains),
        "GenerateGroundedContent: \"" + answer + "\" does not contain \"" + contains + "\"");
    check(
        candidate.hasGroundingScore() && candidate.getGroundingScore() > 0,
        "GenerateGroundedContent: no grounding score");
    check(
        candidate.getGroundingMetadata().getGroundingSupportCount() > 0
            && candidate.getGroundingMetadata().getGroundingSupport(0).getSupportChunkIndicesCount()
                > 0,
        "GenerateGroundedContent: the answer cites no fact");
    return answer;
  }

  /**
   * Sends the same request on the bidirectional stream and asserts the streamed pieces add up to
   * the unary answer, the last one carrying the grounding.
   */
  private static void streamGenerateGroundedContent(
      ManagedChannel channel, JsonObject section, String unaryAnswer) throws Exception {
    GenerateGroundedContentRequest sent =
        request(section, GenerateGroundedContentRequest.newBuilder()).build();
    List<GenerateGroundedContentResponse> received = new ArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<GenerateGroundedContentRequest> requests =
        GroundedGenerationServiceGrpc.newStub(channel)
            .withDeadlineAfter(CALL_SECONDS, TimeUnit.SECONDS)
            .streamGenerateGroundedContent(
                new StreamObserver<GenerateGroundedContentResponse>() {
                  @Override
                  public void onNext(GenerateGroundedContentResponse response) {
                    received.add(response);
                  }

                  @Override
                  public void onError(Throwable error) {
                    done.completeExceptionally(error);
                  }

                  @Override
                  public void onCompleted() {
                    done.complete(null);
                  }
                });
    requests.onNext(sent);
    requests.onCompleted();
    done.get(CALL_SECONDS, TimeUnit.SECONDS);
    check(!received.isEmpty(), "StreamGenerateGroundedContent: no response");
    StringBuilder streamed = new StringBuilder();
    for (GenerateGroundedContentResponse response : received) {
      check(
          response.getCandidatesCount() == 1,
          "StreamGenerateGroundedContent: " + response.getCandidatesCount() + " candidates");
      streamed.append(text(response.getCandidates(0)));
    }
    check(
        streamed.toString().equals(unaryAnswer),
        "StreamGenerateGroundedContent: \"" + streamed + "\", the unary answer is \"" + unaryAnswer
            + "\"");
    check(
        received.get(received.size() - 1).getCandidates(0).hasGroundingScore(),
        "StreamGenerateGroundedContent: the last piece has no score");
  }

  private static String text(GenerateGroundedContentResponse.Candidate candidate) {
    StringBuilder text = new StringBuilder();
    candidate.getContent().getPartsList().forEach(part -> text.append(part.getText()));
    return text.toString();
  }

  /** Asserts Vertex AI's CorroborateContent finds the supported claim. */
  private static void corroborateContent(ManagedChannel channel, JsonObject section)
      throws InvalidProtocolBufferException {
    CorroborateContentRequest sent =
        request(section, CorroborateContentRequest.newBuilder()).build();
    CorroborateContentResponse response =
        VertexRagServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(CALL_SECONDS, TimeUnit.SECONDS)
            .corroborateContent(sent);
    check(
        response.hasCorroborationScore() && response.getCorroborationScore() > 0,
        "CorroborateContent: no corroboration score");
    check(response.getClaimsCount() > 0, "CorroborateContent: no claims");
    dev.groundwire.aiplatform.v1.Claim claim = response.getClaims(0);
    int length = sent.getContent().getParts(0).getText().length();
    check(
        claim.hasStartIndex()
            && claim.hasEndIndex()
            && 0 <= claim.getStartIndex()
            && claim.getStartIndex() < claim.getEndIndex()
            && claim.getEndIndex() <= length,
        "CorroborateContent: the claim's positions do not fit the content");
    JsonArray facts = new JsonArray();
    claim.getFactIndexesList().forEach(facts::add);
    check(
        facts.equals(section.get("expectedFactIndexes")),
        "CorroborateContent: facts " + facts + ", expected " + section.get("expectedFactIndexes"));
  }

  /**
   * Asserts the case's invalid request is refused with the expected code and a
   * google.rpc.BadRequest naming the field.
   */
  private static void invalidArgumentHasBadRequest(ManagedChannel channel, JsonObject section)
      throws InvalidProtocolBufferException {
    CheckGroundingRequest sent = request(section, CheckGroundingRequest.newBuilder()).build();
    Status.Code expectedCode = Status.Code.valueOf(section.get("code").getAsString());
    String field = section.get("badRequestField").getAsString();
    try {
      grounding(channel).checkGrounding(sent);
    } catch (StatusRuntimeException refusal) {
      check(
          refusal.getStatus().getCode() == expectedCode,
          "the invalid request: " + refusal.getStatus() + ", expected " + expectedCode);
      com.google.rpc.Status status = StatusProto.fromThrowable(refusal);
      check(status != null, "the invalid request: no google.rpc.Status details");
      List<String> fields = new ArrayList<>();
      for (Any detail : status.getDetailsList()) {
        if (detail.is(BadRequest.class)) {
          detail
              .unpack(BadRequest.class)
              .getFieldViolationsList()
              .forEach(violation -> fields.add(violation.getField()));
        }
      }
      check(
          fields.equals(List.of(field)),
          expectedCode + "'s BadRequest names " + fields + ", expected " + field);
      return;
    }
    fail("the invalid request succeeded, expected " + expectedCode);
  }

  private static JsonArray pair(int start, int end) {
    JsonArray pair = new JsonArray();
    pair.add(start);
    pair.add(end);
    return pair;
  }

  /** Ends the program with a one-line error unless {@code ok}. */
  private static void check(boolean ok, String message) {
    if (!ok) {
      fail(message);
    }
  }

  private static void fail(String message) {
    System.err.println("java client: " + message);
    System.exit(1);
  }
}
