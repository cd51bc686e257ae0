# The BigQuery remote-function endpoint for Cloud Run (docs/bigquery.md): groundwire[bigquery],
# serving on Cloud Run's $PORT on every interface of the container; Cloud Run's IAM decides who
# may call it. Credentials come from the service's own identity at run time, never the image.
FROM python:3.11-slim

WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY protos ./protos
COPY generated ./generated
COPY src ./src
RUN pip install --no-cache-dir '.[bigquery]' && rm -rf /src

WORKDIR /
USER nobody
ENV PYTHONUNBUFFERED=1
CMD ["sh", "-c", "exec groundwire bigquery-endpoint --public --port ${PORT:-8080}"]
