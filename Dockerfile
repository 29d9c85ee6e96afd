# knowbot: runs `knowbot serve` against the PostgreSQL (with pgvector) in DATABASE_URL.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    HF_HUB_OFFLINE=1 \
    KNOWBOT_DATA_DIR=/data \
    KNOWBOT_HOST=0.0.0.0

RUN useradd --create-home --uid 10001 knowbot && mkdir -p /data && chown knowbot /data
WORKDIR /app

# The CPU build of torch first, so no CUDA packages are pulled in.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0
COPY pyproject.toml README.md alembic.ini ./
COPY bot ./bot
COPY knowledge ./knowledge
COPY migrations ./migrations
COPY prompts ./prompts
COPY examples ./examples
RUN pip install .

USER knowbot
EXPOSE 3978
# DATABASE_URL must be set: the image never starts an embedded server in production.
CMD ["knowbot", "serve", "all"]
